"""Stand-in environments for reinforcement-learning code whose `gym` (or `gymnasium`) is missing.

Runs in the verification child process. A policy-gradient notebook's claim (log-probabilities
appended with their graphs, a copied target network) is about what the agent does with the
observations, not about the game: `gym.make("CartPole-v0")` is answered with an environment of
CartPole's spaces (observations of 4 values, 2 actions) that returns random observations and ends
each episode after a few steps. The spaces of the classic environments are known; another id gets
CartPole's, and the evidence says so. The API is the one the code unpacks (`obs, info =
env.reset()` or five values from `step`: the new one, which gym 0.26 took up too; four values from
`step`: the old one); where the code does not say, `gym` answers with its old API (`obs =
env.reset()`, four values from `step`), `gymnasium` with the new one.
"""

from __future__ import annotations

import ast
from typing import Optional

import numpy as np

EPISODE_STEPS = 8
# What stood in during this diagnosis, for verify/script.py to report (as backbones.notes; script
# imports this module, never the other way round).
notes: list[str] = []
# The API the code of this diagnosis unpacks (`api_in`): True new, False old, None not said.
code_api: Optional[bool] = None


def api_in(source: str) -> Optional[bool]:
    """Which API the code unpacks: True for the new (`state, info = env.reset()`, five values from
    `env.step(a)`), False for the old (four values from `step`), None when it does not say or says both."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    said = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)):
            continue
        unpacked, method = len(node.targets[0].elts), node.value.func.attr
        if method == "reset" and unpacked == 2:
            said.add(True)
        elif method == "step" and unpacked in (4, 5):
            said.add(unpacked == 5)
    return said.pop() if len(said) == 1 else None
# Environment family (the id before its version) -> (observation shape, or the count of discrete
# observations; actions: a count for a discrete space, a shape for a continuous one).
SPACES = {
    "CartPole": ((4,), 2),
    "MountainCar": ((2,), 3),
    "MountainCarContinuous": ((2,), (1,)),
    "Acrobot": ((6,), 3),
    "Pendulum": ((3,), (1,)),
    "LunarLander": ((8,), 4),
    "LunarLanderContinuous": ((8,), (2,)),
    "BipedalWalker": ((24,), (4,)),
    "FrozenLake": (16, 4),
    "Taxi": (500, 6),
    "CliffWalking": (48, 4),
    "CarRacing": ((96, 96, 3), (3,)),
    # MuJoCo's control tasks (their v4 spaces): continuous actions.
    "InvertedPendulum": ((4,), (1,)),
    "InvertedDoublePendulum": ((11,), (1,)),
    "Reacher": ((11,), (2,)),
    "Swimmer": ((8,), (2,)),
    "Hopper": ((11,), (3,)),
    "HalfCheetah": ((17,), (6,)),
    "Walker2d": ((17,), (6,)),
    "Ant": ((27,), (8,)),
    "Humanoid": ((376,), (17,)),
}


def family_of(id: str) -> Optional[str]:
    """The SPACES family an environment id names (`CartPole-v1`, `gymnasium/Pendulum-v1`), also a
    variant of one the author registered (`InvertedPendulumModded`): the longest family it starts with."""
    name = id.split("/")[-1].split("-v")[0]
    if name in SPACES:
        return name
    return max((family for family in SPACES if name.startswith(family)), key=len, default=None)


ATARI_SPACES = ((210, 160, 3), 6)
ATARI_RAM = (128,)  # `Breakout-ram-v0`: the console's memory
# The Arcade Learning Environment's games, with the size of the minimal action set gym gives each
# (None: 6, Pong's). Any of their ids (`Breakout-v0`, `BreakoutDeterministic-v4`,
# `GravitarNoFrameskip-v4`, `ALE/Pong-v5`) is a game of screen frames.
ATARI_GAMES = {
    "Adventure": 18, "AirRaid": None, "Alien": 18, "Amidar": 10, "Assault": 7, "Asterix": 9, "Asteroids": 14,
    "Atlantis": 4, "BankHeist": 18, "BattleZone": 18, "BeamRider": 9, "Berzerk": 18, "Bowling": 6, "Boxing": 18,
    "Breakout": 4, "Carnival": None, "Centipede": 18, "ChopperCommand": 18, "CrazyClimber": 9, "Defender": 18,
    "DemonAttack": 6, "DoubleDunk": 18, "ElevatorAction": 18, "Enduro": 9, "FishingDerby": 18, "Freeway": 3,
    "Frostbite": 18, "Gopher": 8, "Gravitar": 18, "Hero": 18, "IceHockey": 18, "Jamesbond": 18,
    "JourneyEscape": 16, "Kangaroo": 18, "Krull": 18, "KungFuMaster": 14, "MontezumaRevenge": 18,
    "MsPacman": 9, "NameThisGame": 6, "Phoenix": 8, "Pitfall": 18, "Pong": 6, "Pooyan": None,
    "PrivateEye": 18, "Qbert": 6, "Riverraid": 18, "RoadRunner": 18, "Robotank": 18, "Seaquest": 18,
    "Skiing": 3, "Solaris": 18, "SpaceInvaders": 6, "StarGunner": 18, "Tennis": 18, "TimePilot": 10,
    "Tutankham": 8, "UpNDown": 6, "Venture": 18, "VideoPinball": 9, "WizardOfWor": 10, "YarsRevenge": 18,
    "Zaxxon": 18,
}


def atari_spaces(id: str) -> Optional[tuple]:
    """The spaces of an Atari game's id, or None for an id that names none."""
    name = id.split("/")[-1].split("-v")[0]
    game = max((game for game in ATARI_GAMES if name.startswith(game)), key=len, default=None)
    if game is None:
        return ATARI_SPACES if "NoFrameskip" in id or id.startswith("ALE/") else None
    actions = ATARI_GAMES[game] or ATARI_SPACES[1]
    return (ATARI_RAM if "-ram" in name or name.endswith("ram") else ATARI_SPACES[0]), actions


class Discrete:
    def __init__(self, n: int) -> None:
        self.n, self.shape, self.dtype = n, (), np.int64

    def sample(self) -> int:
        return int(np.random.randint(self.n))

    def contains(self, value) -> bool:
        return 0 <= int(value) < self.n


class Box:
    def __init__(self, low=-1.0, high=1.0, shape: Optional[tuple] = None, dtype=np.float32) -> None:
        self.shape = tuple(shape) if shape is not None else np.shape(low)
        self.low = np.full(self.shape, low, dtype=dtype) if np.isscalar(low) else np.asarray(low, dtype)
        self.high = np.full(self.shape, high, dtype=dtype) if np.isscalar(high) else np.asarray(high, dtype)
        self.dtype = dtype

    def sample(self):
        return np.random.uniform(-1.0, 1.0, self.shape).astype(self.dtype)

    def contains(self, value) -> bool:
        return np.shape(value) == self.shape


class _Spec:
    def __init__(self, id: str) -> None:
        self.id, self.max_episode_steps = id, EPISODE_STEPS
        # What an episode's return must reach for the task to count as solved (`if running_reward >
        # env.spec.reward_threshold: break`): out of reach, so a stand-in run never stops training early.
        self.reward_threshold = float("inf")


class StandInEnvironment:
    """Random observations of the environment's spaces; every episode ends after EPISODE_STEPS steps."""

    def __init__(self, id: str, new_api: bool) -> None:
        family = family_of(id)
        observations, actions = SPACES.get(family or "") or atari_spaces(id) or SPACES["CartPole"]
        self.observation_space = Discrete(observations) if isinstance(observations, int) else \
            Box(-1.0, 1.0, observations, np.uint8 if len(observations) == 3 or observations == ATARI_RAM else np.float32)
        self.action_space = Discrete(actions) if isinstance(actions, int) else Box(-1.0, 1.0, actions)
        self.spec, self.new_api, self._steps = _Spec(id), new_api, 0
        self._max_episode_steps = EPISODE_STEPS
        self.unwrapped = self

    def _observation(self):
        space = self.observation_space
        if isinstance(space, Discrete):
            return space.sample()
        if space.dtype == np.uint8:
            return np.random.randint(0, 256, space.shape).astype(np.uint8)
        return space.sample()

    def reset(self, *args, **kwargs):
        self._steps = 0
        return (self._observation(), {}) if self.new_api else self._observation()

    def step(self, action):
        self._steps += 1
        done = self._steps >= EPISODE_STEPS
        observation, reward = self._observation(), float(np.random.uniform(-1.0, 1.0))
        return (observation, reward, done, False, {}) if self.new_api else (observation, reward, done, {})

    def seed(self, *args, **kwargs):
        return [0]

    def render(self, *args, **kwargs):
        return None

    def close(self):
        return None

    def describe(self) -> str:
        observed = self.observation_space
        shown = f"{observed.n} discrete observations" if isinstance(observed, Discrete) else \
            f"observations of shape {observed.shape}"
        acted = self.action_space
        actions = f"{acted.n} actions" if isinstance(acted, Discrete) else f"actions of shape {acted.shape}"
        return f"{shown}, {actions}, episodes of {EPISODE_STEPS} steps"


class _Batched:
    """A vector environment's space: its copies' space, `num_envs` times (`env.action_space[0].n`,
    `env.action_space.sample()`, `env.observation_space.shape[1]`)."""

    def __init__(self, single, count: int) -> None:
        self.single, self.count = single, count
        self.shape = (count, *single.shape)
        self.dtype = single.dtype
        self.nvec = np.full(count, single.n) if isinstance(single, Discrete) else None

    def __getitem__(self, index: int):
        return self.single

    def __len__(self) -> int:
        return self.count

    def sample(self):
        return np.stack([np.asarray(self.single.sample()) for _ in range(self.count)])


class StandInVectorEnvironment:
    """`gym.vector.make(id, num_envs=n)`: n stand-in environments stepped together, each reset as its
    episode ends (as gym's vector environments do)."""

    def __init__(self, id: str, count: int, new_api: bool) -> None:
        self.envs = [StandInEnvironment(id, new_api) for _ in range(count)]
        self.num_envs, self.new_api = count, new_api
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = _Batched(self.single_observation_space, count)
        self.action_space = _Batched(self.single_action_space, count)
        self.spec, self.unwrapped = self.envs[0].spec, self

    def reset(self, *args, **kwargs):
        observations = np.stack([np.asarray(env._observation()) for env in self.envs])
        for env in self.envs:
            env._steps = 0
        return (observations, {}) if self.new_api else observations

    def step(self, actions):
        observations, rewards, dones = [], [], []
        for env, action in zip(self.envs, actions):
            observation, reward, done = env.step(action)[:3]
            if done:
                observation = env.reset()[0] if self.new_api else env.reset()
            observations.append(np.asarray(observation))
            rewards.append(reward)
            dones.append(done)
        stacked = np.stack(observations), np.asarray(rewards, dtype=np.float32), np.asarray(dones)
        if self.new_api:
            return (*stacked, np.zeros(self.num_envs, dtype=bool), {})
        return (*stacked, [{} for _ in self.envs])

    def seed(self, *args, **kwargs):
        return [0] * self.num_envs

    def close(self):
        return None

    def describe(self) -> str:
        return f"{self.num_envs} copies stepped together, each of {self.envs[0].describe()}"


def vector_maker(package: str):
    """`gym.vector.make(id, num_envs=n)` for a missing package: a stand-in vector environment, named in the evidence."""

    def make(id: str, num_envs: int = 1, *args, **kwargs) -> StandInVectorEnvironment:
        new_api = package == "gymnasium" if code_api is None else code_api
        environment = StandInVectorEnvironment(str(id), int(num_envs), new_api)
        text = f"`{package}.vector.make({id!r}, num_envs={num_envs})` ran as stand-in environments ({environment.describe()})"
        if text not in notes:
            notes.append(text)
        return environment

    return make


def maker(package: str):
    """`gym.make` / `gymnasium.make` for a missing package: stand-in environments, each named in the evidence."""

    def make(id: str, *args, **kwargs) -> StandInEnvironment:
        environment = StandInEnvironment(str(id), new_api=package == "gymnasium" if code_api is None else code_api)
        known = family_of(str(id)) is not None or atari_spaces(str(id)) is not None
        api = "" if code_api is None else (
            ", with the new API the code unpacks (`reset()` gives `(observation, info)`, `step` five values)"
            if code_api else ", with the old API the code unpacks (`step` gives four values)")
        text = (f"`{package}.make({id!r})` ran as a stand-in environment of random "
                f"{'' if known else 'CartPole-like '}observations ({environment.describe()}){api}")
        if text not in notes:
            notes.append(text)
        return environment

    return make
