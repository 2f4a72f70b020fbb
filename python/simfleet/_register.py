"""The Gymnasium ids: ``gymnasium.make("simfleet/BucketBrigade-v0", scenario=..., team=[...])``
is the single-seat env of ``simfleet.make`` (one ``"agent"`` seat; by default seat 0)."""

import gymnasium

_IDS = {
    "simfleet/BucketBrigade-v0": "simfleet._bucket_brigade:SingleAgentEnv",
    "simfleet/Deception-v0": "simfleet._deception:single_agent_env",
    "simfleet/Trolley-v0": "simfleet._trolley:single_agent_env",
    "simfleet/Cogsguard-v0": "simfleet._cogsguard:single_agent_env",
}

for _id, _entry in _IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry)
