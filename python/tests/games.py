"""The facts each AEC game's tests need, one entry per game: the generic driver
(test_turn_games.py) runs every test over every game. A game added to ``simfleet.make`` adds
its entry here."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Game:
    name: str
    #: A small scenario and a mixed team (agents and scripted) for PettingZoo's api_test.
    small: str
    mixed_team: list
    #: The Gymnasium id, its keywords, and (key, shape) of one observation key to check.
    gym_id: str
    gym_kwargs: dict
    gym_key: tuple
    #: make() keywords a sweep refuses, and the same scenario and team as a sweep cell.
    bad_kwargs: dict
    bad_scenario: str
    bad_team: list
    #: (scenario, team, agent seats): 100 seeds stepped from Python with the team's built-in
    #: policies in the agent seats against `coordinator run` of the team.
    identity: list
    #: An action in the space that the rules refuse at every decision, and what counts it.
    refused_action: object = None
    #: A python: seat that plays by the rules, the sweep cell's scenario and teammates.
    seat: str = ""
    seat_scenario: str = ""
    seat_mates: list = field(default_factory=list)


GAMES = [
    Game(
        name="deception",
        small="quick_4p1i",
        mixed_team=["agent", "heuristic", "agent", "random"],
        gym_id="simfleet/Deception-v0",
        gym_kwargs={},
        gym_key=("alive", (5,)),  # the default scenario, classic_5p1i
        bad_kwargs={"scenario": "quick_4p1i", "team": ["agent", "heuristic?aggression=2", "random", "random"]},
        bad_scenario="quick_4p1i",
        bad_team=["random", "heuristic?aggression=2", "random", "random"],
        identity=[
            ("quick_4p1i", ["heuristic", "random", "heuristic", "heuristic?aggression=0.9"], [0, 1, 2, 3]),
            ("tiebreak_6p1i?allow_abstain=false", ["random", "heuristic", "random", "heuristic", "random", "heuristic"], [1, 4]),
        ],
        # Accusing oneself: in the space, never legal.
        refused_action={"action": 1, "target": 0, "message": "", "reasoning": ""},
        seat="python:seat_policies:Talker?line=I%20was%20fixing%20wires",
        seat_scenario="quick_4p1i",
        seat_mates=["heuristic", "heuristic", "heuristic"],
    ),
    Game(
        name="trolley",
        small="trio_3p",
        mixed_team=["agent", "debater", "agent"],
        gym_id="simfleet/Trolley-v0",
        gym_kwargs={},
        gym_key=("roles", (5,)),  # the default scenario, balanced_5p
        bad_kwargs={"scenario": "trio_3p", "max_rounds": 0},
        bad_scenario="trio_3p?max_rounds=0",
        bad_team=["debater", "debater", "debater"],
        identity=[
            ("trio_3p", ["debater", "utilitarian", "contrarian"], [0, 1, 2]),
            ("balanced_5p?max_rounds=7", ["random?p_majority=0.3", "persuadable", "debater?skip=0.5", "utilitarian", "random"], [0, 2]),
        ],
        # An empty argument: in the space, never legal (1..=500 characters).
        refused_action={"action": 0, "decision": 0, "text": ""},
        seat="python:seat_policies:Minority",
        seat_scenario="trio_3p",
        seat_mates=["debater", "debater"],
    ),
    Game(
        name="cogsguard",
        small="arena?num_agents=3&max_steps=60&rows=30&cols=30",
        mixed_team=["agent", "pinky", "agent"],
        gym_id="simfleet/Cogsguard-v0",
        gym_kwargs={"scenario": "ascii", "map": "tiny_3p", "max_steps": 50},
        gym_key=("kind", (11, 11)),
        bad_kwargs={"scenario": "arena", "rows": 12},
        bad_scenario="arena?rows=12",
        bad_team=["pinky"] * 8,
        identity=[
            # Pinky's rank (its share of the roles) counts earlier seats with the same spec: two
            # agent seats playing pinky after a scripted one get ranks 1 and 2, as in the sweep.
            ("arena?num_agents=3&max_steps=60&rows=30&cols=30", ["pinky", "pinky", "pinky"], [1, 2]),
            ("ascii?map=tiny_3p&max_steps=80", ["random", "pinky?miner=2", "noop"], [0, 1, 2]),
        ],
        # Every action id is legal in cogsguard: nothing in the space is refused.
        refused_action=None,
        seat="python:seat_policies:Wanderer",
        seat_scenario="ascii?map=tiny_3p&max_steps=40",
        seat_mates=["pinky", "pinky"],
    ),
]
