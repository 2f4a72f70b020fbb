#!/usr/bin/env python3
"""Validates simfleet's deployment files: deploy/, dashboards/ (and their contracts with the code).

    python3 -m pip install kubernetes-validate jsonschema pyyaml check-jsonschema
    python3 scripts/validate-deploy.py [-v]

Needs `kubectl` 1.27+ (kustomize v5 built in; only `kubectl kustomize DIR` is used, no
--load-restrictor) and `promtool` (Debian package prometheus) on PATH; checks nats.conf with
$SIMFLEET_NATS_SERVER or `nats-server` when there is one (the test command installs it), else
skips that check. Installs nothing itself.

Prints one line per check (PASS/FAIL/SKIP) and a final "N passed, M failed" line; exits 1 if
any check failed, 2 if a prerequisite is missing.

What is checked, and against what:
  * every kustomization under deploy/k8s and dashboards/ renders with `kubectl kustomize`
    (components are rendered on top of deploy/k8s/base in a scratch kustomization);
  * every rendered object of a built-in kind validates (strict: unknown fields are errors)
    against the Kubernetes OpenAPI schemas shipped in the kubernetes-validate package, for the
    oldest and the newest version in K8S_VERSIONS;
  * custom resources have no schema there. KEDA ScaledObjects and Prometheus Operator
    PodMonitors are checked structurally by the hand-written JSON schemas CRD_SCHEMAS below
    (the fields their CRDs require plus the types simfleet relies on; keda.sh/v1alpha1 and
    monitoring.coreos.com/v1), and semantically: the ScaledObject targets the worker
    Deployment, reads the backlog of the jobs stream of shared/wire/src/names.rs from the NATS
    Service's /jsz (one metrics-api trigger), and its targetValue equals the worker's
    concurrency (its CPU limit); every PodMonitor selects pods of the same
    rendering through a named container port;
  * pod hardening (non-root, read-only root fs, no privilege escalation, capabilities dropped,
    RuntimeDefault seccomp, requests and limits) on every workload;
  * the worker: probes on /healthz and /readyz of port 9464, worker.toml keys known to
    worker/src/settings.rs and shared/src/nats/auth.rs (the worker refuses unknown keys),
    SIMFLEET_WORKER__* variables that map to known keys, and drain_timeout_seconds (default 25)
    shorter than terminationGracePeriodSeconds;
  * the coordinator Jobs (setup/, submit/): coordinator.toml (ConfigMap
    simfleet-coordinator-config, which the base renders) and SIMFLEET_COORDINATOR__* variables
    use keys of coordinator/src/fleet/settings.rs, secret files are mounted;
  * the workers' consumer limits (ack_wait_seconds, max_deliver, max_ack_pending) are the same in
    worker.toml (with SIMFLEET_WORKER__* overrides) and coordinator.toml, so whichever creates
    the consumer creates it with the deployment's;
  * NATS, in every rendering that runs it (scripts/validate_nats.py): the rendered ConfigMap's
    nats.conf, cluster.conf and permissions.conf pass `nats-server -t`, every `$VARIABLE` they
    read is set by the StatefulSet; the per-role permissions let each role do its part and
    nothing else (the worker cannot publish a job, purge, create or delete a stream, or write
    the sweeps bucket); and the cluster: one server, or an odd number with routes to every pod
    over the headless Service, the route port, required anti-affinity across nodes, a
    PodDisruptionBudget keeping a quorum, stream_replicas = the server count for coordinators
    and workers, and KEDA on the headless Service;
  * `promtool check config` on every Prometheus config under deploy/;
  * deploy/compose/compose.yaml against the compose-spec JSON schema vendored by the
    check-jsonschema package (check_jsonschema/builtin_schemas/vendor/compose-spec.json, from
    github.com/compose-spec/compose-spec), plus: published ports on 127.0.0.1, scalable worker,
    stop grace > drain, bind-mount sources and the submitted sweep exist;
  * deploy/Dockerfile: every COPY source of the build stages exists and is not excluded by
    deploy/Dockerfile.dockerignore; the built packages and binaries exist; the runtime image sets
    the metrics listener, a non-root user and EXPOSE 9464; every workspace member is copied;
  * deploy/Dockerfile.python (the worker image for python: seats): FROM the simfleet image,
    binaries that image has, the POLICIES folder present, not ignored and every module of it
    importable, PYTHONPATH, SIMFLEET_PYTHON, numpy, the metrics listener, uid 65532;
  * dashboards: JSON parses, schemaVersion >= 39, a `datasource` variable, every panel and
    target uses {"type": "prometheus", "uid": "${datasource}"}, variables game, scenario and
    policy_set exist, expressions use only the variables of dashboards/README.md and only the
    metrics of docs/metrics.md (as named in worker/src/telemetry.rs), and every expression,
    substituted as the README says, parses (`promtool check rules`);
  * the dashboards ConfigMap (dashboards/kustomization.yaml) holds exactly dashboards/*.json,
    byte for byte, with the label grafana_dashboard: "1";
  * `nats-server -t` needs $SIMFLEET_NATS_SERVER or `nats-server` on PATH; without one that part
    is skipped.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import traceback
from pathlib import Path

import validate_nats

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DASHBOARDS = ROOT / "dashboards"
VERBOSE = "-v" in sys.argv[1:]

MISSING = []
try:
    import yaml
except ImportError:
    MISSING.append("pyyaml")
try:
    import jsonschema
except ImportError:
    MISSING.append("jsonschema")
try:
    import kubernetes_validate
except ImportError:
    MISSING.append("kubernetes-validate")
try:
    import check_jsonschema  # only for its vendored compose-spec schema
except ImportError:
    MISSING.append("check-jsonschema")
if MISSING:
    print(f"validate-deploy: missing Python packages: {', '.join(MISSING)}\n"
          f"  install them with: python3 -m pip install kubernetes-validate jsonschema pyyaml check-jsonschema",
          file=sys.stderr)
    sys.exit(2)

for tool in ("kubectl", "promtool"):
    if shutil.which(tool) is None:
        print(f"validate-deploy: `{tool}` is not on PATH "
              f"({'Debian package prometheus' if tool == 'promtool' else 'kubectl >= 1.27'})", file=sys.stderr)
        sys.exit(2)

# Oldest and newest Kubernetes versions the manifests must be valid for.
K8S_VERSIONS = ["1.30.0", kubernetes_validate.latest_version()]

# Variables a dashboard expression may use; dashboards/README.md gives the substitution the
# integration test applies (and this script uses to check that every expression parses).
DASHBOARD_SUBSTITUTIONS = {
    "${datasource}": "",
    "$datasource": "",
    "${game}": "bucket_brigade",
    "$game": "bucket_brigade",
    "${scenario}": ".*",
    "$scenario": ".*",
    "${policy_set}": ".*",
    "$policy_set": ".*",
    "$__rate_interval": "1m",
    "$__range": "5m",
    "$__interval": "15s",
}


def game_names() -> list[str]:
    """The game ids, as `GameKind::as_str` spells them (shared/src/games/mod.rs): a new game is
    named there only."""
    text = (ROOT / "shared/src/games/mod.rs").read_text()
    names = re.findall(r'GameKind::[A-Za-z]+ => "([a-z_]+)",', text)
    if not names:
        raise SystemExit("validate-deploy: no game names found in shared/src/games/mod.rs")
    return names


GAMES = game_names()


class CheckFailed(Exception):
    pass


def fail(msg: str):
    raise CheckFailed(msg)


RESULTS = {"pass": 0, "fail": 0, "skip": 0}


def check(name: str, fn, *args):
    try:
        note = fn(*args)
    except CheckFailed as e:
        RESULTS["fail"] += 1
        print(f"FAIL  {name}: {e}")
        return False
    except Exception as e:  # a bug in a check is a failure too, with the traceback in -v
        RESULTS["fail"] += 1
        print(f"FAIL  {name}: {type(e).__name__}: {e}")
        if VERBOSE:
            traceback.print_exc()
        return False
    if isinstance(note, str) and note.startswith("SKIP"):
        RESULTS["skip"] += 1
        print(f"SKIP  {name}: {note[5:].strip()}")
        return True
    RESULTS["pass"] += 1
    print(f"PASS  {name}" + (f" ({note})" if note else ""))
    return True


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# --------------------------------------------------------------------------------------------
# Facts read from the code, so the deployment cannot drift from it.

def rust_struct_fields(path: Path, struct: str) -> set[str]:
    text = path.read_text()
    m = re.search(r"struct\s+" + struct + r"\s*\{(.*?)\n\}", text, re.S)
    if not m:
        fail(f"cannot find struct {struct} in {rel(path)}")
    return set(re.findall(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?([a-z_][a-z0-9_]*)\s*:", m.group(1), re.M))


def worker_keys() -> tuple[set[str], set[str]]:
    top = rust_struct_fields(ROOT / "worker/src/settings.rs", "RawConfig")
    auth = rust_struct_fields(ROOT / "shared/src/nats/auth.rs", "AuthConfig")
    if "drain_timeout_seconds" not in top or "user" not in auth:
        fail("worker/src/settings.rs or shared/src/nats/auth.rs no longer look as expected")
    return top, auth


def coordinator_keys() -> tuple[set[str], set[str]]:
    top = rust_struct_fields(ROOT / "coordinator/src/fleet/settings.rs", "RawConfig")
    if "nats_url" not in top or "stream_replicas" not in top:
        fail("coordinator/src/fleet/settings.rs no longer looks as expected")
    return top, worker_keys()[1]


def default_drain_seconds() -> int:
    text = (ROOT / "worker/src/settings.rs").read_text()
    m = re.search(r"drain_timeout:\s*Duration::from_secs\((\d+)\)", text)
    return int(m.group(1)) if m else 25


def topology_names() -> dict[str, str]:
    text = (ROOT / "shared/wire/src/names.rs").read_text()
    return dict(re.findall(r'pub const ([A-Z_]+): &str = "([^"]+)";', text))


def allowed_metrics() -> set[str]:
    """docs/metrics.md's metrics, as named in worker/src/telemetry.rs (plus the coordinator's)."""
    text = (ROOT / "worker/src/telemetry.rs").read_text()
    names = set(re.findall(r'pub const [A-Z_]+: &str = "(simfleet_[a-z_]+)";', text))
    for pattern in re.findall(r'format!\("(simfleet_\{\}_[a-z_]+)"', text):
        names.update(pattern.replace("{}", g) for g in GAMES)
    # The coordinator's (docs/metrics.md, "Coordinator"): coordinator/src/fleet/metrics.rs.
    coordinator = (ROOT / "coordinator/src/fleet/metrics.rs").read_text()
    names.update(re.findall(r'pub const [A-Z_]+: &str = "(simfleet_[a-z_]+)";', coordinator))
    expanded = set()
    for n in names:
        expanded.add(n)
        expanded.update({n + "_bucket", n + "_sum", n + "_count"})
    return expanded


# --------------------------------------------------------------------------------------------
# Kustomize

def kustomization_dirs() -> list[tuple[Path, str]]:
    out = []
    for k in sorted(list(K8S.rglob("kustomization.yaml")) + list(DASHBOARDS.glob("kustomization.yaml"))):
        kind = (yaml.safe_load(k.read_text()) or {}).get("kind", "Kustomization")
        out.append((k.parent, kind))
    return out


RENDERED: dict[str, list[dict]] = {}


def render(directory: Path, kind: str) -> str:
    if kind == "Component":
        # A component renders only inside a kustomization: put it on top of the base.
        with tempfile.TemporaryDirectory() as tmp:
            base = os.path.relpath(K8S / "base", tmp)
            comp = os.path.relpath(directory, tmp)
            Path(tmp, "kustomization.yaml").write_text(
                f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                f"resources: [{base}]\ncomponents: [{comp}]\n")
            p = run(["kubectl", "kustomize", tmp])
    else:
        p = run(["kubectl", "kustomize", str(directory)])
    if p.returncode != 0:
        fail(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "kubectl kustomize failed")
    docs = [d for d in yaml.safe_load_all(p.stdout) if d]
    if not docs:
        fail("rendered nothing")
    RENDERED[rel(directory) + (" (on base)" if kind == "Component" else "")] = docs
    return f"{len(docs)} objects"


def kubectl_version():
    p = run(["kubectl", "version", "--client", "-o", "json"])
    if p.returncode != 0:
        fail(p.stderr.strip())
    v = json.loads(p.stdout)["clientVersion"]
    minor = int(re.match(r"\d+", v["minor"]).group(0))
    if int(v["major"]) != 1 or minor < 27:
        fail(f"kubectl {v['gitVersion']}: need 1.27 or newer (kustomize v5)")
    return f"kubectl {v['gitVersion']}, kustomize {json.loads(p.stdout).get('kustomizeVersion', '?')}"


# --------------------------------------------------------------------------------------------
# Kubernetes schemas

CRD_SCHEMAS = {
    # keda.sh/v1alpha1 ScaledObject: the fields the CRD requires (spec.scaleTargetRef.name,
    # spec.triggers[].type and metadata, a map of strings) and the types of what simfleet sets.
    ("keda.sh/v1alpha1", "ScaledObject"): {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "metadata": {"type": "object", "required": ["name"]},
            "spec": {
                "type": "object",
                "required": ["scaleTargetRef", "triggers"],
                "properties": {
                    "scaleTargetRef": {"type": "object", "required": ["name"],
                                       "properties": {"name": {"type": "string"}, "kind": {"type": "string"},
                                                      "apiVersion": {"type": "string"}}},
                    "pollingInterval": {"type": "integer", "minimum": 1},
                    "cooldownPeriod": {"type": "integer", "minimum": 0},
                    "minReplicaCount": {"type": "integer", "minimum": 0},
                    "maxReplicaCount": {"type": "integer", "minimum": 1},
                    "advanced": {"type": "object"},
                    "triggers": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "required": ["type", "metadata"],
                        "properties": {"type": {"type": "string"},
                                       "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}}},
                },
                "additionalProperties": False,
            },
        },
    },
    # monitoring.coreos.com/v1 PodMonitor: spec.selector is required, endpoints name a port.
    ("monitoring.coreos.com/v1", "PodMonitor"): {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "metadata": {"type": "object", "required": ["name"]},
            "spec": {
                "type": "object",
                "required": ["selector", "podMetricsEndpoints"],
                "properties": {
                    "selector": {"type": "object"},
                    "namespaceSelector": {"type": "object"},
                    "podMetricsEndpoints": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "anyOf": [{"required": ["port"]}, {"required": ["portNumber"]}],
                        "properties": {"port": {"type": "string"}, "portNumber": {"type": "integer"},
                                       "path": {"type": "string"},
                                       "interval": {"type": "string", "pattern": r"^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"}}}},
                },
            },
        },
    },
}


def validate_schemas(docs: list[dict]) -> str:
    errors, builtin, custom = [], 0, 0
    for d in docs:
        name = f"{d.get('kind')}/{d.get('metadata', {}).get('name')}"
        key = (d.get("apiVersion"), d.get("kind"))
        if key in CRD_SCHEMAS:
            custom += 1
            for e in jsonschema.Draft202012Validator(CRD_SCHEMAS[key]).iter_errors(d):
                errors.append(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            continue
        builtin += 1
        for version in K8S_VERSIONS:
            try:
                kubernetes_validate.validate(d, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                errors.append(f"{name} (k8s {version}): {'/'.join(map(str, e.path))}: {e.message}")
            except kubernetes_validate.SchemaNotFoundError:
                errors.append(f"{name}: no schema for {key} in Kubernetes {version} (add one to CRD_SCHEMAS?)")
    if errors:
        fail("; ".join(errors[:5]) + (f" (+{len(errors) - 5} more)" if len(errors) > 5 else ""))
    return f"{builtin} built-in against k8s {' and '.join(K8S_VERSIONS)}, {custom} custom"


def pod_specs(docs):
    for d in docs:
        spec = None
        if d.get("kind") in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
            spec = d["spec"]["template"]["spec"]
        elif d.get("kind") == "CronJob":
            spec = d["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        if spec is not None:
            yield d, spec


def hardening(docs) -> str:
    errors, n = [], 0
    for d, spec in pod_specs(docs):
        psc = spec.get("securityContext", {})
        where = f"{d['kind']}/{d['metadata']['name']}"
        if psc.get("seccompProfile", {}).get("type") != "RuntimeDefault":
            errors.append(f"{where}: pod seccompProfile is not RuntimeDefault")
        if spec.get("automountServiceAccountToken") is not False:
            errors.append(f"{where}: automountServiceAccountToken is not false")
        for c in spec.get("containers", []) + spec.get("initContainers", []):
            n += 1
            csc = c.get("securityContext", {})
            w = f"{where}/{c['name']}"
            if not (csc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True):
                errors.append(f"{w}: runAsNonRoot is not true")
            if csc.get("readOnlyRootFilesystem") is not True:
                errors.append(f"{w}: readOnlyRootFilesystem is not true")
            if csc.get("allowPrivilegeEscalation") is not False:
                errors.append(f"{w}: allowPrivilegeEscalation is not false")
            if csc.get("capabilities", {}).get("drop") != ["ALL"]:
                errors.append(f"{w}: capabilities.drop is not [ALL]")
            res = c.get("resources", {})
            if not res.get("requests") or not res.get("limits", {}).get("memory"):
                errors.append(f"{w}: needs resource requests and a memory limit")
    if n == 0:
        return "no workloads"
    if errors:
        fail("; ".join(errors))
    return f"{n} containers"


def find(docs, kind, name=None):
    return [d for d in docs if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name)]


def cpu_cores(q) -> float:
    q = str(q)
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)


def worker_checks(docs) -> str:
    deps = find(docs, "Deployment", "simfleet-worker")
    if not deps:
        return "SKIP no worker Deployment in this rendering"
    dep = deps[0]
    spec = dep["spec"]["template"]["spec"]
    c = next(c for c in spec["containers"] if c["name"] == "worker")
    top, auth = worker_keys()
    ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
    errors = []
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        g = c.get(probe, {}).get("httpGet", {})
        port = ports.get(g.get("port"), g.get("port"))
        if g.get("path") != path or port != 9464:
            errors.append(f"{probe} is not httpGet {path} on 9464 (got {g.get('path')} on {port})")
    # The config file: --config path -> mounted ConfigMap -> worker.toml.
    args = c.get("args", [])
    if "--config" not in args:
        fail("the worker is not started with --config")
    cfg_path = Path(args[args.index("--config") + 1])
    mount = next((m for m in c.get("volumeMounts", []) if cfg_path.parent == Path(m["mountPath"])), None)
    if mount is None:
        fail(f"nothing is mounted at {cfg_path.parent}")
    vol = next(v for v in spec["volumes"] if v["name"] == mount["name"])
    cms = find(docs, "ConfigMap", vol["configMap"]["name"])
    if not cms:
        fail(f"ConfigMap {vol['configMap']['name']} is not in the rendering")
    text = cms[0]["data"].get(cfg_path.name)
    if text is None:
        fail(f"ConfigMap {vol['configMap']['name']} has no key {cfg_path.name}")
    cfg = tomllib.loads(text)
    unknown = [k for k in cfg if k not in top] + [f"auth.{k}" for k in cfg.get("auth", {}) if k not in auth]
    if unknown:
        errors.append(f"{cfg_path.name}: keys the worker refuses: {', '.join(unknown)}")
    env = {e["name"]: e for e in c.get("env", [])}
    for name in env:
        if name.startswith("SIMFLEET_WORKER__"):
            parts = name[len("SIMFLEET_WORKER__"):].lower().split("__")
            ok = (len(parts) == 1 and parts[0] in top) or (len(parts) == 2 and parts[0] == "auth" and parts[1] in auth)
            if not ok:
                errors.append(f"env {name} maps to no worker config key")
    # Secret files named in the environment are mounted.
    for name, e in env.items():
        if name.endswith("_FILE") and "value" in e:
            if not any(e["value"].startswith(m["mountPath"].rstrip("/") + "/") for m in c.get("volumeMounts", [])):
                errors.append(f"{name}={e['value']} is not under any volume mount")
    # Drain vs grace.
    drain = cfg.get("drain_timeout_seconds", default_drain_seconds())
    if "SIMFLEET_WORKER__DRAIN_TIMEOUT_SECONDS" in env:
        drain = int(env["SIMFLEET_WORKER__DRAIN_TIMEOUT_SECONDS"]["value"])
    grace = spec.get("terminationGracePeriodSeconds", 30)
    if not drain < grace:
        errors.append(f"drain_timeout_seconds {drain} is not shorter than terminationGracePeriodSeconds {grace}")
    # KEDA: targetValue is the jobs one replica holds (its concurrency = its CPU limit), and the
    # backlog is the jobs stream's messages, read from the NATS Service's /jsz.
    conc_env = env.get("SIMFLEET_WORKER__CONCURRENCY", {})
    limit = c.get("resources", {}).get("limits", {}).get("cpu")
    concurrency = cfg.get("concurrency")
    if conc_env.get("valueFrom", {}).get("resourceFieldRef", {}).get("resource") == "limits.cpu" and limit:
        concurrency = int(-(-cpu_cores(limit) // 1))
    names = topology_names()
    for so in find(docs, "ScaledObject"):
        if so["spec"]["scaleTargetRef"]["name"] != "simfleet-worker":
            errors.append(f"ScaledObject {so['metadata']['name']} does not target simfleet-worker")
        triggers = so["spec"]["triggers"]
        if [t["type"] for t in triggers] != ["metrics-api"]:
            errors.append(f"the ScaledObject's triggers are {[t['type'] for t in triggers]}, expected one metrics-api "
                          "(the jobs stream's backlog: every sweep has its own consumer)")
            continue
        m = triggers[0]["metadata"]
        for field in ("url", "valueLocation", "targetValue"):
            if field not in m:
                errors.append(f"metrics-api trigger lacks {field}")
        stream_query = f'stream_detail.#(name=="{names.get("JOBS_STREAM")}").state.messages'
        if not m.get("valueLocation", "").endswith(stream_query):
            errors.append(f"valueLocation {m.get('valueLocation')} does not read {stream_query}")
        if concurrency is not None and m.get("targetValue") != str(concurrency):
            errors.append(f"targetValue {m.get('targetValue')} != the jobs one replica holds ({concurrency})")
        ns = dep["metadata"].get("namespace", "default")
        if not re.match(rf"http://simfleet-nats(-headless)?\.{ns}\.svc[^/]*:8222/jsz\?", m.get("url", "")):
            errors.append(f"url {m.get('url')} is not the /jsz of the NATS Service of namespace {ns}")
        elif "streams=true" not in m["url"] or "accounts=true" not in m["url"]:
            errors.append(f"url {m['url']} does not ask /jsz for accounts and streams")
    for hpa in find(docs, "HorizontalPodAutoscaler"):
        if hpa["spec"]["scaleTargetRef"]["name"] != "simfleet-worker":
            errors.append(f"HPA {hpa['metadata']['name']} does not target simfleet-worker")
    if find(docs, "ScaledObject") and find(docs, "HorizontalPodAutoscaler"):
        errors.append("both a ScaledObject and an HPA scale the workers")
    if (find(docs, "ScaledObject") or find(docs, "HorizontalPodAutoscaler")) and "replicas" in dep["spec"]:
        errors.append("an autoscaler owns the workers but the Deployment still sets replicas")
    if errors:
        fail("; ".join(errors))
    return f"drain {drain}s < grace {grace}s, concurrency {concurrency}"


def selects(selector: dict, labels: dict) -> bool:
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for e in selector.get("matchExpressions", []):
        v = labels.get(e["key"])
        if e["operator"] == "In" and v not in e["values"]:
            return False
        if e["operator"] == "NotIn" and v in e["values"]:
            return False
        if e["operator"] == "Exists" and e["key"] not in labels:
            return False
        if e["operator"] == "DoesNotExist" and e["key"] in labels:
            return False
    return True


def references(docs) -> str:
    """Selectors select something; PodMonitors reach a named port; NATS admits only our clients."""
    errors = []
    pods = [(d, spec, d["spec"]["template"]["metadata"].get("labels", {})) for d, spec in pod_specs(docs)]
    for pm in find(docs, "PodMonitor"):
        matched = [(d, s) for d, s, l in pods if selects(pm["spec"]["selector"], l)]
        if not matched:
            # The coordinator's pods come from deploy/k8s/submit, rendered separately.
            if pm["metadata"]["name"] != "simfleet-coordinator":
                errors.append(f"PodMonitor {pm['metadata']['name']} selects no pod")
            continue
        for ep in pm["spec"]["podMetricsEndpoints"]:
            for d, s in matched:
                names = {p.get("name") for c in s["containers"] for p in c.get("ports", [])}
                if ep.get("port") and ep["port"] not in names:
                    errors.append(f"PodMonitor {pm['metadata']['name']}: {d['metadata']['name']} has no port {ep['port']}")
    for kind in ("Service", "PodDisruptionBudget"):
        for o in find(docs, kind):
            sel = o["spec"].get("selector") or {}
            sel = sel if "matchLabels" in sel or "matchExpressions" in sel else {"matchLabels": sel}
            if not any(selects(sel, l) for _, _, l in pods):
                errors.append(f"{kind} {o['metadata']['name']} selects no pod")
    nats_np = find(docs, "NetworkPolicy", "simfleet-nats")
    if find(docs, "StatefulSet", "simfleet-nats"):
        if not nats_np:
            errors.append("no NetworkPolicy simfleet-nats")
        else:
            for rule in nats_np[0]["spec"]["ingress"]:
                if any(p["port"] == 4222 for p in rule.get("ports", [])):
                    for peer in rule["from"]:
                        allowed = {"worker", "coordinator"}
                        sel = peer.get("podSelector")
                        ok = sel is not None and "namespaceSelector" not in peer and all(
                            e["key"] == "app.kubernetes.io/component" and e["operator"] == "In" and set(e["values"]) <= allowed
                            for e in sel.get("matchExpressions", [])) and sel.get("matchExpressions")
                        if not ok:
                            errors.append("NATS 4222 is open to more than worker and coordinator pods")
    if errors:
        fail("; ".join(errors))


def dashboards_configmap() -> str:
    docs = RENDERED.get(rel(DASHBOARDS))
    if docs is None:
        fail("dashboards/kustomization.yaml did not render")
    cms = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    if len(cms) != 1:
        fail(f"expected one ConfigMap labelled grafana_dashboard: \"1\", found {len(cms)}")
    data = cms[0].get("data", {})
    files = {p.name: p.read_text() for p in DASHBOARDS.glob("*.json")}
    if set(data) != set(files):
        fail(f"ConfigMap keys {sorted(data)} != dashboards/*.json {sorted(files)}")
    differ = [k for k in files if data[k] != files[k]]
    if differ:
        fail(f"ConfigMap content differs from {differ}")
    return f"{len(files)} dashboards"


# --------------------------------------------------------------------------------------------
# Dashboards

DS = {"type": "prometheus", "uid": "${datasource}"}
VAR_RE = re.compile(r"\$(\{[A-Za-z_]+\}|[A-Za-z_]+)")


def dashboard_exprs(d):
    for p in d.get("panels", []):
        yield from ((p, t) for t in p.get("targets", []))
        for sub in p.get("panels", []):  # collapsed rows
            yield from ((sub, t) for t in sub.get("targets", []))


def substitute(expr: str) -> str:
    for k in sorted(DASHBOARD_SUBSTITUTIONS, key=len, reverse=True):
        expr = expr.replace(k, DASHBOARD_SUBSTITUTIONS[k])
    return expr


def check_dashboard(path: Path) -> str:
    d = json.loads(path.read_text())
    errors = []
    if d.get("schemaVersion", 0) < 39:
        errors.append(f"schemaVersion {d.get('schemaVersion')} < 39")
    variables = {v["name"]: v for v in d.get("templating", {}).get("list", [])}
    dv = variables.get("datasource")
    if not dv or dv.get("type") != "datasource" or dv.get("query") != "prometheus":
        errors.append("no variable `datasource` of type datasource, query prometheus")
    for name in ("game", "scenario", "policy_set"):
        v = variables.get(name)
        if not v or v.get("type") != "query" or "label_values(" not in json.dumps(v.get("query")):
            errors.append(f"variable {name} is not a label_values query")
        elif v.get("datasource") != DS:
            errors.append(f"variable {name} does not use ${{datasource}}")
    panels = list(d.get("panels", []))
    for p in list(panels):
        panels.extend(p.get("panels", []))
    ids = [p.get("id") for p in panels]
    if len(ids) != len(set(ids)):
        errors.append("duplicate panel ids")
    allowed = allowed_metrics()
    n = 0
    for p in panels:
        if p.get("datasource") != DS:
            errors.append(f"panel {p.get('title')!r}: datasource is {p.get('datasource')}")
        if not p.get("targets") and p.get("type") != "row":
            errors.append(f"panel {p.get('title')!r}: no targets")
        for t in p.get("targets", []):
            n += 1
            where = f"panel {p.get('title')!r} target {t.get('refId')}"
            if t.get("datasource") != DS:
                errors.append(f"{where}: datasource is {t.get('datasource')}")
            expr = t.get("expr", "")
            if not expr:
                errors.append(f"{where}: no expr")
            for var in VAR_RE.findall(expr):
                if "$" + var not in DASHBOARD_SUBSTITUTIONS:
                    errors.append(f"{where}: variable ${var} is not in the substitution contract")
            sub = substitute(expr)
            metrics = set(re.findall(r"\bsimfleet_[a-z_]+", sub))
            bad = sorted(m for m in metrics if m not in allowed)
            if bad:
                errors.append(f"{where}: metrics not in docs/metrics.md: {bad}")
    if errors:
        fail("; ".join(errors[:6]) + (f" (+{len(errors) - 6} more)" if len(errors) > 6 else ""))
    return f"{len(panels)} panels, {n} targets"


def dashboards_promql() -> str:
    rules, n = [], 0
    for path in sorted(DASHBOARDS.glob("*.json")):
        d = json.loads(path.read_text())
        for p, t in dashboard_exprs(d):
            n += 1
            rules.append({"record": f"dashboard:{path.stem}:{n}", "expr": substitute(t["expr"])})
        for v in d.get("templating", {}).get("list", []):
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            m = re.match(r"label_values\((.*),\s*[a-z_]+\)$", q or "")
            if m:
                n += 1
                rules.append({"record": f"dashboard:{path.stem}:var_{v['name']}", "expr": substitute(m.group(1))})
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}, f)
        name = f.name
    try:
        p = run(["promtool", "check", "rules", name])
    finally:
        os.unlink(name)
    if p.returncode != 0:
        fail((p.stdout + p.stderr).strip().replace("\n", " | "))
    return f"{n} expressions parse"


def provisioning() -> str:
    ds = yaml.safe_load((DASHBOARDS / "provisioning/datasources.yaml").read_text())
    if not any(x.get("type") == "prometheus" for x in ds.get("datasources", [])):
        fail("datasources.yaml has no prometheus datasource")
    db = yaml.safe_load((DASHBOARDS / "provisioning/dashboards.yaml").read_text())
    provs = db.get("providers", [])
    if not provs or any(p.get("type") != "file" or not p.get("options", {}).get("path") for p in provs):
        fail("dashboards.yaml needs file providers with a path")
    compose = yaml.safe_load((DEPLOY / "compose/compose.yaml").read_text())
    mounts = compose["services"]["grafana"]["volumes"]
    path = provs[0]["options"]["path"]
    if not any(isinstance(m, str) and m.split(":")[1] == path and Path(DEPLOY / "compose", m.split(":")[0]).resolve() == DASHBOARDS
               for m in mounts):
        fail(f"compose does not mount dashboards/ at the provider path {path}")


# --------------------------------------------------------------------------------------------
# Prometheus, compose, Dockerfile, NATS

def prometheus_configs():
    configs = sorted(set(DEPLOY.glob("compose/prometheus*.yml")) | set(DEPLOY.glob("prometheus/*.yml")))
    return configs


def promtool_config(path: Path):
    p = run(["promtool", "check", "config", str(path)])
    if p.returncode != 0:
        fail((p.stdout + p.stderr).strip().replace("\n", " | "))


def compose_schema() -> str:
    schema_path = Path(check_jsonschema.__file__).parent / "builtin_schemas/vendor/compose-spec.json"
    if not schema_path.is_file():
        fail(f"{schema_path} is missing from check-jsonschema")
    schema = json.loads(schema_path.read_text())
    doc = yaml.safe_load((DEPLOY / "compose/compose.yaml").read_text())
    validator = jsonschema.validators.validator_for(schema)  # the schema's own draft (2020-12)
    errs = list(validator(schema).iter_errors(doc))
    if errs:
        fail("; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errs[:5]))
    return f"compose-spec schema vendored by check-jsonschema, {validator.__name__}"


def compose_rules() -> str:
    path = DEPLOY / "compose/compose.yaml"
    doc = yaml.safe_load(path.read_text())
    services = doc["services"]
    errors = []
    for name, s in services.items():
        for port in s.get("ports", []):
            if isinstance(port, dict):
                ok = port.get("host_ip") == "127.0.0.1"
            else:
                ok = str(port).startswith("127.0.0.1:")
            if not ok:
                errors.append(f"{name}: port {port} is not bound to 127.0.0.1")
        for v in s.get("volumes", []):
            src = v.split(":")[0] if isinstance(v, str) else (v.get("source") if v.get("type") == "bind" else None)
            if src and (src.startswith(".") or src.startswith("/")) and not (path.parent / src).exists():
                errors.append(f"{name}: bind-mount source {src} does not exist")
    w = services.get("worker", {})
    if "container_name" in w or w.get("ports"):
        errors.append("worker has a container_name or host ports: it cannot be scaled")
    grace = str(w.get("stop_grace_period", "10s"))
    m = re.fullmatch(r"(\d+)s", grace)
    if not m or int(m.group(1)) <= default_drain_seconds():
        errors.append(f"worker stop_grace_period {grace} is not longer than the drain ({default_drain_seconds()}s)")
    top, auth = worker_keys()
    for name, s in services.items():
        for key in (s.get("environment") or {}):
            if key.startswith("SIMFLEET_WORKER__"):
                parts = key[len("SIMFLEET_WORKER__"):].lower().split("__")
                if not ((len(parts) == 1 and parts[0] in top) or (len(parts) == 2 and parts[0] == "auth" and parts[1] in auth)):
                    errors.append(f"{name}: {key} maps to no worker config key")
    c = services.get("coordinator", {})
    if "submit" not in c.get("profiles", []):
        errors.append("the coordinator is not in profile submit")
    mounts = {v.split(":")[1]: v.split(":")[0] for v in c.get("volumes", []) if isinstance(v, str)}
    for arg in c.get("command", []):
        for target, src in mounts.items():
            if arg.startswith(target + "/") and arg.endswith(".toml"):
                host = (path.parent / src / arg[len(target) + 1:]).resolve()
                if not host.is_file():
                    errors.append(f"the coordinator submits {arg}, but {rel(host)} does not exist")
    prom = yaml.safe_load((DEPLOY / "compose/prometheus.yml").read_text())
    sd = [n for j in prom["scrape_configs"] for c in j.get("dns_sd_configs", []) for n in c["names"]
          if c.get("port") == 9464]
    if "worker" not in sd:
        errors.append("prometheus.yml does not discover the `worker` service on 9464 by DNS")
    if errors:
        fail("; ".join(errors))


def dockerignore_excluded(path: str, patterns: list[str]) -> bool:
    """moby/patternmatcher semantics, simplified: the last pattern matching the path or one of
    its parent directories decides; `!` re-includes."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    excluded = False
    for pat in patterns:
        neg = pat.startswith("!")
        p = pat[1:] if neg else pat
        p = p.strip("/")
        regex = "^" + re.escape(p).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]") + "$"
        if any(re.match(regex, pre) for pre in prefixes):
            excluded = not neg
    return excluded


def dockerfile() -> str:
    df = DEPLOY / "Dockerfile"
    ignore = DEPLOY / "Dockerfile.dockerignore"
    if not ignore.is_file():
        fail("deploy/Dockerfile.dockerignore is missing")
    patterns = [l.strip() for l in ignore.read_text().splitlines() if l.strip() and not l.strip().startswith("#")]
    text = re.sub(r"\\\n", " ", df.read_text())
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
    errors, copies = [], 0
    stages = [l for l in lines if l.upper().startswith("FROM ")]
    if len(stages) < 2:
        errors.append("not a multi-stage build")
    for l in lines:
        if not re.match(r"(?i)(COPY|ADD)\s", l):
            continue
        words = l.split()[1:]
        if any(w.startswith("--from=") for w in words):
            continue
        srcs = [w for w in words if not w.startswith("--")][:-1]
        for s in srcs:
            copies += 1
            matches = glob.glob(str(ROOT / s))
            if not matches:
                errors.append(f"COPY source {s} does not exist")
            elif dockerignore_excluded(s.rstrip("/"), patterns):
                errors.append(f"COPY source {s} is excluded by Dockerfile.dockerignore")
    # The workspace manifest loads only with every member present (cargo refuses a missing one).
    copied = {w for l in lines if re.match(r"(?i)COPY\s", l) and "--from=" not in l for w in l.split()[1:-1]}
    for member in tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["members"]:
        if not any(member == c or member.startswith(c.rstrip("/") + "/") for c in copied):
            errors.append(f"workspace member {member} is not copied into the build stage")
    # Packages built and binaries copied.
    packages = {}
    for toml in ROOT.glob("*/Cargo.toml"):
        t = tomllib.loads(toml.read_text())
        if "package" in t:
            packages[t["package"]["name"]] = {b["name"] for b in t.get("bin", [])}
    built = re.findall(r"-p\s+([A-Za-z0-9_-]+)", text)
    for p in built:
        if p not in packages:
            errors.append(f"cargo -p {p}: no such package")
    bins = set().union(*(packages.get(p, set()) for p in built)) if built else set()
    for b in re.findall(r"target/release/([A-Za-z0-9_-]+)", text):
        if b not in bins:
            errors.append(f"target/release/{b} is not a binary of the built packages")
    if "--locked" not in text:
        errors.append("cargo build without --locked")
    errors += worker_runtime_errors(text)
    if errors:
        fail("; ".join(errors))
    return f"{copies} COPY sources, packages {', '.join(built)}"


def worker_runtime_errors(text: str) -> list[str]:
    """What a worker image's runtime (last) stage must do: listen for metrics on every
    interface, run as uid 65532, EXPOSE 9464."""
    last = text[text.rfind("\nFROM "):]
    errors = []
    if "SIMFLEET_WORKER__METRICS_LISTEN=0.0.0.0:9464" not in last:
        errors.append("the runtime stage does not set SIMFLEET_WORKER__METRICS_LISTEN=0.0.0.0:9464")
    if not re.search(r"\nUSER\s+65532", last):
        errors.append("the runtime stage does not run as uid 65532")
    if not re.search(r"\nEXPOSE\s+9464", last):
        errors.append("the runtime stage does not EXPOSE 9464")
    return errors


def python_dockerfile() -> str:
    """deploy/Dockerfile.python: the simfleet image's binaries on a Python base, the policies'
    folder (its POLICIES default) copied and importable, and the worker's runtime settings."""
    df = DEPLOY / "Dockerfile.python"
    ignore = DEPLOY / "Dockerfile.python.dockerignore"
    if not ignore.is_file():
        fail("deploy/Dockerfile.python.dockerignore is missing")
    patterns = [l.strip() for l in ignore.read_text().splitlines() if l.strip() and not l.strip().startswith("#")]
    text = re.sub(r"\\\n", " ", df.read_text())
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
    errors = []
    args = dict(re.findall(r"(?m)^ARG\s+(\w+)=(\S+)", text))
    stages = [l.split()[1] for l in lines if l.upper().startswith("FROM ")]
    if len(stages) != 2 or stages[0] != "${SIMFLEET_IMAGE}":
        errors.append("expected two stages, the first FROM ${SIMFLEET_IMAGE}")
    simfleet_bins = set(re.findall(r"target/release/([A-Za-z0-9_-]+)", (DEPLOY / "Dockerfile").read_text()))
    for l in lines:
        if l.upper().startswith("COPY --FROM=SIMFLEET"):
            for src in l.split()[2:-1]:
                if Path(src).parent != Path("/usr/local/bin") or Path(src).name not in simfleet_bins:
                    errors.append(f"{src} is not a binary of the simfleet image")
    policies = args.get("POLICIES")
    if not policies or not (ROOT / policies).is_dir():
        errors.append(f"ARG POLICIES default {policies} is not a folder of the repository")
    elif dockerignore_excluded(policies, patterns):
        errors.append(f"{policies} is excluded by Dockerfile.python.dockerignore")
    else:
        modules = sorted(p.stem for p in (ROOT / policies).glob("*.py"))
        env = dict(os.environ, PYTHONPATH=str(ROOT / policies))
        for m in modules:
            r = subprocess.run([sys.executable, "-c", f"import {m}"], env=env, capture_output=True, text=True)
            if r.returncode != 0:
                errors.append(f"{policies}/{m}.py does not import: {r.stderr.strip().splitlines()[-1]}")
    last = text[text.rfind("\nFROM "):]
    for needed in ("PYTHONPATH=/opt/policies", "SIMFLEET_PYTHON=python3"):
        if needed not in last:
            errors.append(f"the runtime stage does not set {needed}")
    if "COPY ${POLICIES} /opt/policies" not in last:
        errors.append("the runtime stage does not copy ${POLICIES} to /opt/policies")
    if "numpy" not in last:
        errors.append("the runtime stage does not install numpy (the host's python: observations are numpy arrays)")
    errors += worker_runtime_errors(text)
    if errors:
        fail("; ".join(errors))
    return f"policies {policies} ({len(modules)} modules import)"


def nats_server_binary():
    # scripts/test exports the pinned server it installed as SIMFLEET_NATS_SERVER.
    return os.environ.get("SIMFLEET_NATS_SERVER") or shutil.which("nats-server")


def configmap_data(docs, prefix: str) -> dict[str, str] | None:
    cms = [d for d in docs if d.get("kind") == "ConfigMap" and d["metadata"]["name"].startswith(prefix)]
    return cms[0].get("data", {}) if cms else None


def nats_checks(docs) -> str:
    """The rendered NATS configs (nats-server -t), their variables, permissions and cluster."""
    sts = find(docs, "StatefulSet", "simfleet-nats")
    if not sts:
        return "SKIP no NATS in this rendering"
    files = configmap_data(docs, "simfleet-nats-config")
    if not files or "nats.conf" not in files:
        fail("no ConfigMap simfleet-nats-config with nats.conf")
    container = sts[0]["spec"]["template"]["spec"]["containers"][0]
    env_names = {e["name"] for e in container.get("env", [])}
    # Quoted strings are literal (`"$JS.API.>"` is a subject, not a variable).
    text = "\n".join(re.sub(r'"[^"]*"', '""', re.sub(r"#.*", "", t)) for t in files.values())
    defined = set(re.findall(r"^\s*([A-Z_]+)\s*[:=]", text, re.M))
    used = set(re.findall(r"\$([A-Z_]+)", text)) - defined
    errors = [f"the configs read ${v}, which the StatefulSet does not set" for v in sorted(used - env_names)]
    errors += validate_nats.permission_errors(files, topology_names())
    coordinator = (configmap_data(docs, "simfleet-coordinator-config") or {}).get("coordinator.toml")
    errors += validate_nats.cluster_errors(docs, files, coordinator)
    note = f"{sts[0]['spec'].get('replicas', 1)} server(s)"
    server = nats_server_binary()
    if server is None:
        note += "; nats-server -t skipped (no nats-server on PATH)"
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for name, body in files.items():
                Path(tmp, name).write_text(body)
            env = dict(os.environ, **{v: "x" + v.lower().replace("_", "") for v in used})
            env["POD_NAME"] = "simfleet-nats-0"
            p = run([server, "-t", "-c", str(Path(tmp, "nats.conf"))], env=env)
            if p.returncode != 0:
                errors.append("nats-server -t: " + (p.stdout + p.stderr).strip())
            else:
                note += ", nats-server -t passes"
    if errors:
        fail("; ".join(errors))
    return note


CONSUMER_LIMITS = {"ack_wait_seconds": 30, "max_deliver": 5, "max_ack_pending": 1000}


def consumer_limits(docs) -> str:
    """worker.toml and coordinator.toml give the workers' consumer the same limits: whichever
    creates it (the coordinator, or `coordinator setup`) creates it with the deployment's."""
    dep = find(docs, "Deployment", "simfleet-worker")[0]
    c = next(c for c in dep["spec"]["template"]["spec"]["containers"] if c["name"] == "worker")
    worker_files = configmap_data(docs, "simfleet-worker-config") or {}
    coordinator_files = configmap_data(docs, "simfleet-coordinator-config") or {}
    if "worker.toml" not in worker_files or "coordinator.toml" not in coordinator_files:
        return "SKIP worker.toml or coordinator.toml not in this rendering"
    worker = tomllib.loads(worker_files["worker.toml"])
    coordinator = tomllib.loads(coordinator_files["coordinator.toml"])
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    errors, shown = [], []
    for key, default in CONSUMER_LIMITS.items():
        w = int(env.get(f"SIMFLEET_WORKER__{key.upper()}") or worker.get(key, default))
        k = int(coordinator.get(key, default))
        if w != k:
            errors.append(f"{key}: the workers have {w}, coordinator.toml {k}")
        shown.append(f"{key} {w}")
    if errors:
        fail("the workers' consumer limits differ between worker.toml and coordinator.toml: " + "; ".join(errors))
    return ", ".join(shown)


def coordinator_jobs(docs) -> str:
    """Jobs running the coordinator: their --config and variables use known keys."""
    top, auth = coordinator_keys()
    errors, n = [], 0
    for d, spec in pod_specs(docs):
        for c in spec["containers"]:
            if not any("coordinator" in w for w in c.get("command", [])):
                continue
            n += 1
            args = c.get("args", [])
            if "--config" not in args:
                errors.append(f"{d['metadata']['name']}: the coordinator runs without --config")
                continue
            path = Path(args[args.index("--config") + 1])
            mount = next((m for m in c.get("volumeMounts", []) if Path(m["mountPath"]) == path.parent), None)
            vol = next((v for v in spec.get("volumes", []) if mount and v["name"] == mount["name"]), None)
            if not vol or vol.get("configMap", {}).get("name") != "simfleet-coordinator-config":
                errors.append(f"{d['metadata']['name']}: {path} is not the ConfigMap simfleet-coordinator-config")
            env = {e["name"]: e for e in c.get("env", [])}
            for name in env:
                if name.startswith("SIMFLEET_COORDINATOR__"):
                    parts = name[len("SIMFLEET_COORDINATOR__"):].lower().split("__")
                    if not ((len(parts) == 1 and parts[0] in top) or (len(parts) == 2 and parts[0] == "auth" and parts[1] in auth)):
                        errors.append(f"env {name} maps to no coordinator config key")
            for name, e in env.items():
                if name.endswith("_FILE") and "value" in e:
                    if not any(e["value"].startswith(m["mountPath"].rstrip("/") + "/") for m in c.get("volumeMounts", [])):
                        errors.append(f"{name}={e['value']} is not under any volume mount")
    # The ConfigMap those Jobs mount comes from the base (every overlay renders it).
    cm = configmap_data(RENDERED.get(rel(K8S / "base"), []), "simfleet-coordinator-config")
    if n and (cm is None or "coordinator.toml" not in cm):
        errors.append("the base renders no ConfigMap simfleet-coordinator-config with coordinator.toml")
    elif n:
        unknown = [k for k in tomllib.loads(cm["coordinator.toml"]) if k not in top]
        if unknown:
            errors.append(f"coordinator.toml: keys the coordinator refuses: {', '.join(unknown)}")
    if n == 0:
        return "SKIP no coordinator Job in this rendering"
    if errors:
        fail("; ".join(errors))
    return f"{n} coordinator container(s)"


# --------------------------------------------------------------------------------------------

def main() -> int:
    check("kubectl supports kustomize", kubectl_version)
    dirs = kustomization_dirs()
    for d, kind in dirs:
        check(f"kustomize render {rel(d)}" + (" (component, on base)" if kind == "Component" else ""), render, d, kind)
    for name, docs in RENDERED.items():
        check(f"schemas {name}", validate_schemas, docs)
    for name, docs in RENDERED.items():
        if any(True for _ in pod_specs(docs)):
            check(f"pod hardening {name}", hardening, docs)
    for name, docs in RENDERED.items():
        if find(docs, "Deployment", "simfleet-worker"):
            check(f"worker config, probes, drain < grace, autoscaling {name}", worker_checks, docs)
    for name, docs in RENDERED.items():
        if find(docs, "Deployment", "simfleet-worker"):
            check(f"worker.toml and coordinator.toml agree on the consumer's limits {name}", consumer_limits, docs)
    for name, docs in RENDERED.items():
        check(f"selectors and NetworkPolicy {name}", references, docs)
    for name, docs in RENDERED.items():
        if find(docs, "StatefulSet", "simfleet-nats"):
            check(f"NATS configs, permissions and cluster {name}", nats_checks, docs)
    for name, docs in RENDERED.items():
        if find(docs, "Job"):
            check(f"coordinator Jobs {name}", coordinator_jobs, docs)
    check("dashboards ConfigMap == dashboards/*.json", dashboards_configmap)
    for path in sorted(DASHBOARDS.glob("*.json")):
        check(f"dashboard {rel(path)}", check_dashboard, path)
    check("dashboard PromQL parses (promtool check rules, README substitution)", dashboards_promql)
    check("dashboards/provisioning", provisioning)
    for path in prometheus_configs():
        check(f"promtool check config {rel(path)}", promtool_config, path)
    check("compose.yaml against the compose-spec schema", compose_schema)
    check("compose.yaml ports, scaling, grace, mounts, sweep", compose_rules)
    check("Dockerfile stages, COPY sources, runtime", dockerfile)
    check("Dockerfile.python: the python: seat worker image", python_dockerfile)
    summary = f"{RESULTS['pass']} passed, {RESULTS['fail']} failed"
    if RESULTS["skip"]:
        summary += f", {RESULTS['skip']} skipped"
    print(summary)
    return 1 if RESULTS["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
