"""NATS checks of scripts/validate-deploy.py: the server configs of a rendering, the per-role
permissions, and the shape of a JetStream cluster. Pure functions over rendered objects and
config text, each returning a list of errors (empty when the check passes).

* `parse_conf`: the subset of the nats-server config format simfleet's files use (maps, arrays,
  quoted and bare strings, numbers, `$VARIABLE` references, `include`, `#` and `//` comments).
* `permission_errors`: what each role may publish, against the subjects the code uses (names
  from shared/wire/src/names.rs): the worker cannot publish a job, create, purge, update or delete
  a stream, touch a consumer other than its own (whose limits it updates), or write the sweeps
  bucket; the coordinator cannot create, update or delete a
  stream; each can do its own part; the admin can do everything.
* `cluster_errors`: N servers (1, or an odd number for a quorum), routes to every StatefulSet
  pod through the headless Service, the route port exposed, pods on different nodes, a
  PodDisruptionBudget keeping a majority, `stream_replicas` equal to N for coordinators and
  workers, and KEDA reading the cluster through the headless Service.
"""

from __future__ import annotations

import re
import tomllib

TOKEN = re.compile(r'\s+|#[^\n]*|//[^\n]*|"(?:[^"\\]|\\.)*"|\'[^\']*\'|[{}\[\],:=]|[^\s{}\[\],:="\']+')


def parse_conf(text: str) -> dict:
    """A nats-server config as nested dicts and lists; `$NAME` values stay strings."""
    tokens = [t for t in TOKEN.findall(text) if t.strip() and not t.startswith(("#", "//"))]
    pos = 0

    def value():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t == "{":
            return body("}")
        if t == "[":
            items = []
            while tokens[pos] != "]":
                if tokens[pos] == ",":
                    pos += 1
                    continue
                items.append(value())
            pos += 1
            return items
        if t[0] in "\"'":
            return t[1:-1]
        return t

    def body(end):
        nonlocal pos
        out = {}
        while pos < len(tokens) and tokens[pos] != end:
            key = tokens[pos].strip("\"'")
            pos += 1
            if tokens[pos] in (":", "="):
                pos += 1
            v = value()
            if key == "include":
                out.setdefault("include", []).append(v)
            else:
                out[key] = v
            if pos < len(tokens) and tokens[pos] == ",":
                pos += 1
        pos += 1
        return out

    return body(None)


def subject_matches(pattern: str, subject: str) -> bool:
    """NATS wildcards: `*` is one token, `>` one or more at the end."""
    p, s = pattern.split("."), subject.split(".")
    for i, token in enumerate(p):
        if token == ">":
            return len(s) > i
        if i >= len(s) or (token != "*" and token != s[i]):
            return False
    return len(p) == len(s)


def may_publish(perms: dict, subject: str) -> bool:
    pub = perms.get("publish", {})
    if isinstance(pub, list):
        pub = {"allow": pub}
    allow, deny = pub.get("allow"), pub.get("deny", [])
    if any(subject_matches(d, subject) for d in deny):
        return False
    return allow is None or any(subject_matches(a, subject) for a in allow)


def users(conf: dict, variables: dict) -> dict[str, dict]:
    """The users of `authorization {}` by their user variable, with resolved permissions."""
    out = {}
    for u in conf.get("authorization", {}).get("users", []):
        perms = u.get("permissions")
        out[u.get("user", "?")] = variables.get(perms[1:], {}) if isinstance(perms, str) else (perms or {})
    return out


def permission_errors(files: dict[str, str], names: dict[str, str]) -> list[str]:
    if "permissions.conf" not in files:
        return ["the NATS ConfigMap has no permissions.conf"]
    conf = parse_conf(files["nats.conf"])
    if "./permissions.conf" not in conf.get("include", []):
        return ["nats.conf does not include ./permissions.conf"]
    variables = parse_conf(files["permissions.conf"])
    by_user = users(conf, variables)
    roles = {"$SIMFLEET_WORKER_USER": "worker", "$SIMFLEET_COORDINATOR_USER": "coordinator",
             "$SIMFLEET_ADMIN_USER": "admin"}
    if set(by_user) != set(roles):
        return [f"nats.conf users are {sorted(by_user)}, expected {sorted(roles)}"]
    perms = {roles[u]: p for u, p in by_user.items()}
    for role, p in perms.items():
        if not p:
            return [f"the {role} user has no permissions"]
    jobs, results, dlq = names["JOBS_STREAM"], names["RESULTS_STREAM"], names["DLQ_STREAM"]
    bucket = names["SWEEPS_BUCKET"]
    # A sweep's consumer (shared/wire/src/names.rs, sweep_consumer_name) and its filter.
    consumer = names["SWEEP_CONSUMER_PREFIX"] + "sweep-1"
    own_filter = names["JOBS_FILTER"].replace(">", "*.sweep-1")
    kv = f"KV_{bucket}"
    api = "$JS.API"
    job = names["JOBS_FILTER"].replace(">", "bucket_brigade.sweep-1")
    result = names["RESULTS_FILTER"].replace(">", "sweep-1")
    topology_changes = [f"{api}.STREAM.{op}.{s}" for op in ("CREATE", "UPDATE", "DELETE") for s in (jobs, results, dlq, kv)]
    # A consumer that would take every sweep's jobs: nobody but the admin may create it.
    catch_all = [f"{api}.CONSUMER.CREATE.{jobs}.{consumer}", f"{api}.CONSUMER.CREATE.{jobs}.x.{names['JOBS_FILTER']}"]
    expect = {
        "worker": (
            [result, f"{api}.CONSUMER.MSG.NEXT.{jobs}.{consumer}", f"$JS.ACK.{jobs}.{consumer}.1.2.3.4.5.6",
             f"{api}.STREAM.INFO.{jobs}", f"{api}.CONSUMER.INFO.{jobs}.{consumer}",
             f"{api}.DIRECT.GET.{kv}.$KV.{bucket}.sweep-1",
             f"{api}.CONSUMER.CREATE.{jobs}.{consumer}.{own_filter}"],
            [job, f"{api}.STREAM.PURGE.{jobs}", f"$KV.{bucket}.sweep-1", f"{api}.STREAM.MSG.DELETE.{jobs}",
             f"{api}.CONSUMER.DELETE.{jobs}.{consumer}"] + catch_all + topology_changes,
        ),
        "coordinator": (
            [job, f"$KV.{bucket}.sweep-1", f"{api}.STREAM.PURGE.{jobs}", f"{api}.CONSUMER.CREATE.{results}.watch-s",
             f"{api}.CONSUMER.MSG.NEXT.{results}.watch-s", f"$JS.ACK.{results}.watch-s.1.2.3.4.5.6",
             f"{api}.CONSUMER.CREATE.{jobs}.{consumer}.{own_filter}", f"{api}.CONSUMER.INFO.{jobs}.{consumer}"],
            [result, f"{api}.CONSUMER.DELETE.{jobs}.{consumer}", f"{api}.CONSUMER.MSG.NEXT.{jobs}.{consumer}"]
            + catch_all + topology_changes,
        ),
        "admin": (topology_changes, []),
    }
    errors = []
    for role, (can, cannot) in expect.items():
        errors += [f"the {role} may not publish {s}" for s in can if not may_publish(perms[role], s)]
        errors += [f"the {role} may publish {s}" for s in cannot if may_publish(perms[role], s)]
        sub = perms[role].get("subscribe", {})
        sub_allow = sub.get("allow", sub) if isinstance(sub, dict) else sub
        if "_INBOX.>" not in (sub_allow or []) and role != "admin":
            errors.append(f"the {role} may not subscribe to _INBOX.> (replies)")
    return errors


def _stream_replicas(text: str | None, env: dict, prefix: str) -> int:
    value = env.get(f"{prefix}__STREAM_REPLICAS", {}).get("value")
    if value is not None:
        return int(value)
    return int(tomllib.loads(text or "").get("stream_replicas", 1))


def cluster_errors(docs: list[dict], files: dict[str, str], coordinator_toml: str | None) -> list[str]:
    def find(kind, name=None):
        return [d for d in docs if d.get("kind") == kind and (name is None or d["metadata"]["name"] == name)]

    sts = find("StatefulSet", "simfleet-nats")[0]
    n = sts["spec"].get("replicas", 1)
    spec = sts["spec"]["template"]["spec"]
    labels = sts["spec"]["selector"]["matchLabels"]
    errors = []
    cluster = parse_conf(files.get("cluster.conf", "")).get("cluster")
    if n == 1:
        if cluster:
            errors.append("one server but cluster.conf has a cluster block")
    else:
        if n % 2 == 0:
            errors.append(f"{n} servers: an even count adds no fault tolerance (use 3 or 5)")
        if not cluster:
            return errors + [f"{n} servers but cluster.conf has no cluster block"]
        headless = sts["spec"]["serviceName"]
        port = int(cluster.get("port", 6222))
        want = {f"nats://simfleet-nats-{i}.{headless}:{port}" for i in range(n)}
        if set(cluster.get("routes", [])) != want:
            errors.append(f"routes {cluster.get('routes')} are not every pod: {sorted(want)}")
        svc = find("Service", headless)
        if not svc or port not in [p["port"] for p in svc[0]["spec"]["ports"]]:
            errors.append(f"the headless Service {headless} does not expose the route port {port}")
        ports = [p["containerPort"] for c in spec["containers"] for p in c.get("ports", [])]
        if port not in ports:
            errors.append(f"the NATS container does not expose the route port {port}")
        anti = spec.get("affinity", {}).get("podAntiAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution", [])
        if not any(t.get("topologyKey") == "kubernetes.io/hostname"
                   and t.get("labelSelector", {}).get("matchLabels") == labels for t in anti):
            errors.append("the NATS pods lack a required anti-affinity on kubernetes.io/hostname")
        pdbs = [p for p in find("PodDisruptionBudget") if p["spec"]["selector"].get("matchLabels") == labels]
        quorum = n // 2 + 1
        if not pdbs:
            errors.append("no PodDisruptionBudget selects the NATS pods")
        else:
            pdb = pdbs[0]["spec"]
            ok = pdb.get("maxUnavailable") == n - quorum or pdb.get("minAvailable") == quorum
            if not ok:
                errors.append(f"the NATS PodDisruptionBudget does not keep a quorum of {quorum}: {pdb}")
    # stream_replicas: the coordinators' (what setup creates) and the workers' (what they check).
    if coordinator_toml is None:
        errors.append("no ConfigMap simfleet-coordinator-config with coordinator.toml")
    elif _stream_replicas(coordinator_toml, {}, "") != n:
        errors.append(f"coordinator.toml has stream_replicas {_stream_replicas(coordinator_toml, {}, '')}, NATS has {n} servers")
    for dep in find("Deployment", "simfleet-worker"):
        c = dep["spec"]["template"]["spec"]["containers"][0]
        env = {e["name"]: e for e in c.get("env", [])}
        cms = [d for d in find("ConfigMap") if d["metadata"]["name"].startswith("simfleet-worker-config")]
        worker_toml = cms[0]["data"].get("worker.toml") if cms else None
        r = _stream_replicas(worker_toml, env, "SIMFLEET_WORKER")
        if r != n:
            errors.append(f"workers expect stream_replicas {r}, NATS has {n} servers")
    return errors
