"""PettingZoo environments for every game of the registry (`shadowjudge.games()`).

    from shadowjudge.envs.pettingzoo import env, parallel_env
    aec = env("duple", players=3)          # any game: AEC, one decision a step
    par = parallel_env("standard")         # Diplomacy: one phase a step, every power at once

An action is an index into the candidate lines of the decision under way; index 0 is the
empty line (no order for this unit; in a small game, wait for the deadline). The
observation is a dict: `observation`, the player's view as compact JSON in UTF-8 bytes
padded with zeros (`shadowjudge.envs.decode` reads it back), or in Diplomacy with
`observation="board"` the position as numbers; and `action_mask`, 1 for every index that
names a candidate. `infos[agent]["legal_actions"]` lists the lines.
"""

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from shadowjudge.envs._core import NO_LINE, DiplomacyTable, encode, registry_entry, table

# The most candidates of one decision; a decision with more raises ValueError.
MAX_ACTIONS = {"standard": 400, "shadow-worlds": 800}
DEFAULT_MAX_ACTIONS = 512
# The bytes of one observation.
OBS_BYTES = {"standard": 6144, "shadow-worlds": 12288}
DEFAULT_OBS_BYTES = 8192


def observation_kind(game_table, kind: str) -> str:
    if kind not in ("json", "board"):
        raise ValueError(f'observation is "json" or "board", not {kind!r}')
    if kind == "board" and not isinstance(game_table, DiplomacyTable):
        raise ValueError('observation="board" is for Diplomacy; a small game\'s view is its JSON')
    return kind


def observation_space(game_table, kind: str, obs_bytes: int) -> spaces.Box:
    if kind == "json":
        return spaces.Box(0, 255, (obs_bytes,), np.uint8)
    high = np.ones(game_table.board_size(), dtype=np.float32)
    high[-1] = 100  # (year - 1901) / 100
    return spaces.Box(np.zeros_like(high), high, dtype=np.float32)


def _mask(count: int, size: int) -> np.ndarray:
    if count > size:
        raise ValueError(f"a decision has {count} candidates, more than max_actions={size}: give a larger max_actions")
    mask = np.zeros(size, dtype=np.int8)
    mask[:count] = 1
    return mask


class ShadowjudgeAEC(AECEnv):
    """Any game of the registry, one decision a step (see the module's docstring).

    Diplomacy: a decision is one orderable place of one power, the powers in turn and each
    one's places in alphabetical order; the phase is processed after the last. A small
    game: a decision is a whole turn file of the player awaited (several awaited together
    are taken in turn from the seat after the last to act); once all of them waited, the
    deadline's defaults are applied (`TurnGame.force`).

    Keywords: `players`, `options` (a small game, as `TurnGame`); `rules`, `start` (a
    `Game.to_json()` to start from) and `max_phases` (then truncated) for Diplomacy;
    `max_steps` (decisions, then truncated) for any game; `max_actions`, the size of the
    action space (400 in standard Diplomacy, 800 in Shadow Worlds, 512 in a small game:
    above the most candidates one decision has); `observation`, `"json"` (the view's
    bytes, `obs_bytes` long) or, in Diplomacy, `"board"` (numbers: `DiplomacyTable.board`).
    Rewards come at the end: +1 to each winner and -1 to every other seat (0 to all when
    nobody won); a power eliminated gets -1 and leaves the game.
    """

    metadata = {"name": "shadowjudge_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str = "standard",
        *,
        players=None,
        options: Optional[Dict[str, Any]] = None,
        rules=None,
        max_phases: Optional[int] = None,
        start: Optional[str] = None,
        max_steps: Optional[int] = None,
        max_actions: Optional[int] = None,
        observation: str = "json",
        obs_bytes: Optional[int] = None,
        render_mode: Optional[str] = None,
    ):
        super().__init__()
        self.game_name = game
        self.table = table(game, players=players, options=options, rules=rules, max_phases=max_phases, start=start)
        self.kind = observation_kind(self.table, observation)
        self.max_steps = max_steps
        self.render_mode = render_mode
        size = max_actions or MAX_ACTIONS.get(game, DEFAULT_MAX_ACTIONS)
        self.obs_bytes = obs_bytes or OBS_BYTES.get(game, DEFAULT_OBS_BYTES)
        self.possible_agents = list(self.table.agents)
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observation_space(self.table, self.kind, self.obs_bytes),
                    "action_mask": spaces.Box(0, 1, (size,), np.int8),
                }
            )
            for a in self.possible_agents
        }

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        self.table.reset(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"legal_actions": []} for a in self.agents}
        self.steps = 0
        self._candidates: List[str] = []
        self._next()

    def observe(self, agent):
        mine = agent in self.agents and agent == self.agent_selection
        mine = mine and not (self.terminations[agent] or self.truncations[agent])
        count = len(self._candidates) if mine else 0
        if self.kind == "board":
            seen = self.table.board(agent, self.table.locations(agent)[:1] if mine else [])
        else:
            seen = encode(self.table.view_json(agent), self.obs_bytes)
        return {"observation": seen, "action_mask": _mask(count, self.action_spaces[agent].n)}

    def _next(self) -> None:
        """Select the agent to act: a finished one to be removed first, then the decision."""
        done = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if done:
            self.agent_selection = done[0]
            return
        decision = self.table.decision()
        if decision is None:  # the game is over (it sets the terminations first)
            return
        self.agent_selection, self._candidates = decision
        for a in self.agents:
            self.infos[a] = {"legal_actions": self._candidates if a == self.agent_selection else []}

    def _finish(self) -> None:
        """After a decision: rewards and terminations once the game ended, was cut short,
        or a power was eliminated."""
        self.steps += 1
        self.table.decision()  # runs the game on to the next decision (it may end there)
        if self.table.done:
            self.rewards.update(self.table.rewards())
            self.terminations = {a: True for a in self.agents}
        elif self.table.truncated or (self.max_steps is not None and self.steps >= self.max_steps):
            self.truncations = {a: True for a in self.agents}
        else:
            for a in self.table.eliminated():
                if a in self.agents and not self.terminations[a]:
                    self.terminations[a] = True
                    self.rewards[a] = -1.0
        self._accumulate_rewards()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            if self.agents:
                self._next()
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        index = int(action)
        if not 0 <= index < len(self._candidates):
            raise ValueError(f"action {index} is not one of the {len(self._candidates)} candidates (see action_mask)")
        self.table.act(agent, self._candidates[index])
        self._finish()
        self._next()

    def render(self) -> Optional[str]:
        """With render_mode="ansi": the position as text (a small game's report, as players read it)."""
        return None if self.render_mode is None else self.table.text()

    def close(self) -> None:
        pass


class DiplomacyParallel(ParallelEnv):
    """Standard Diplomacy or Shadow Worlds, one phase a step: every power gives all its
    orders at once. A power's action is one index per orderable place (`MultiDiscrete`,
    `max_units` places, in the order of `infos[power]["locations"]`); index 0 is no order,
    as are the places beyond the power's own. An index with no candidate (its mask is 0)
    counts as 0, and `infos[power]["invalid_actions"]` says at how many places. The
    observation is as in `ShadowjudgeAEC` (`to_order` lists all the power's places), with
    one mask per place (a tuple of arrays)."""

    metadata = {"name": "shadowjudge_diplomacy_parallel_v0", "render_modes": ["ansi"]}

    def __init__(
        self,
        variant: str = "standard",
        *,
        rules=None,
        max_phases: Optional[int] = None,
        start: Optional[str] = None,
        max_units: Optional[int] = None,
        max_actions: Optional[int] = None,
        observation: str = "json",
        obs_bytes: Optional[int] = None,
        render_mode: Optional[str] = None,
    ):
        if not registry_entry(variant)["powers"]:
            raise ValueError(f"`{variant}` is not a game of Diplomacy's powers: use the AEC env()")
        self.table = table(variant, rules=rules, max_phases=max_phases, start=start)
        self.kind = observation_kind(self.table, observation)
        self.render_mode = render_mode
        self.max_units = max_units or (34 if variant == "standard" else 68)
        size = max_actions or MAX_ACTIONS.get(variant, DEFAULT_MAX_ACTIONS)
        self.obs_bytes = obs_bytes or OBS_BYTES.get(variant, DEFAULT_OBS_BYTES)
        self.possible_agents = list(self.table.agents)
        self.action_spaces = {a: spaces.MultiDiscrete([size] * self.max_units) for a in self.possible_agents}
        mask = spaces.Tuple([spaces.Box(0, 1, (size,), np.int8) for _ in range(self.max_units)])
        seen = observation_space(self.table, self.kind, self.obs_bytes)
        self.observation_spaces = {
            a: spaces.Dict({"observation": seen, "action_mask": mask}) for a in self.possible_agents
        }

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _candidates(self, power: str) -> List[List[str]]:
        return [[NO_LINE] + self.table.possible[loc] for loc in self.table.locations(power)]

    def _observe(self):
        size = self.action_spaces[self.possible_agents[0]].nvec[0]
        obs, infos = {}, {}
        for power in self.agents:
            candidates = self._candidates(power)
            if len(candidates) > self.max_units:
                raise ValueError(f"{power} orders {len(candidates)} places, more than max_units={self.max_units}")
            counts = [len(c) for c in candidates] + [1] * (self.max_units - len(candidates))
            if self.kind == "board":
                seen = self.table.board(power, self.table.locations(power))
            else:
                seen = encode(self.table.view_json(power, self.table.locations(power)), self.obs_bytes)
            obs[power] = {
                "observation": seen,
                "action_mask": tuple(_mask(n, size) for n in counts),
            }
            infos[power] = {"locations": self.table.locations(power), "legal_actions": candidates}
        return obs, infos

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        self.table.reset(seed)
        self.agents = list(self.possible_agents)
        return self._observe()

    def step(self, actions: Dict[str, Any]):
        orders, invalid = {}, {}
        for power in self.agents:
            candidates = self._candidates(power)
            action = actions.get(power)
            indexes = [0 if action is None else int(action[i]) for i in range(len(candidates))]
            invalid[power] = sum(not 0 <= k < len(c) for k, c in zip(indexes, candidates))
            orders[power] = [c[k] if 0 <= k < len(c) else NO_LINE for k, c in zip(indexes, candidates)]
        self.table.give(orders)
        rewards = {a: 0.0 for a in self.agents}
        terminations = {a: False for a in self.agents}
        truncations = {a: False for a in self.agents}
        if self.table.done:
            rewards.update(self.table.rewards())
            terminations = {a: True for a in self.agents}
        elif self.table.truncated:
            truncations = {a: True for a in self.agents}
        else:
            for a in self.table.eliminated():
                if a in terminations:
                    terminations[a], rewards[a] = True, -1.0
        obs, infos = self._observe()
        for power, count in invalid.items():
            infos.setdefault(power, {})["invalid_actions"] = count
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Optional[str]:
        return None if self.render_mode is None else self.table.text()

    def close(self) -> None:
        pass


def env(game: str = "standard", **kwargs) -> ShadowjudgeAEC:
    """The AEC environment of a game of the registry (see `ShadowjudgeAEC`)."""
    return ShadowjudgeAEC(game, **kwargs)


def parallel_env(variant: str = "standard", **kwargs) -> DiplomacyParallel:
    """The parallel environment of standard Diplomacy or Shadow Worlds."""
    return DiplomacyParallel(variant, **kwargs)
