"""A Gymnasium environment for one player of any game of the registry against given
opponents: the AEC environment (`shadowjudge.envs.pettingzoo`) with every other seat
played by a policy.

    from shadowjudge.envs.gymnasium import SinglePlayerEnv
    env = SinglePlayerEnv("standard", player="FRANCE", max_phases=20)
    obs, info = env.reset(seed=1)   # obs["action_mask"]; info["legal_actions"]

Observations and actions are the AEC environment's. An action with no candidate behind
it (its mask is 0) counts as action 0 (no order; in a small game, wait for the
deadline), and the step's info says `invalid_action: True`. The reward is the player's
over the step and the opponents' moves after it; the episode ends when the game ends
for the player (a win, a loss, an elimination) or is cut short.
"""

import random
from typing import Any, Callable, Dict, Optional

import gymnasium

from shadowjudge.envs.pettingzoo import ShadowjudgeAEC

# A policy: (observation, info) -> action.
Policy = Callable[[Dict[str, Any], Dict[str, Any]], int]


class RandomPolicy:
    """Picks uniformly among the candidates (the empty line, action 0, included)."""

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def __call__(self, observation, info) -> int:
        return self.rng.randrange(len(info["legal_actions"]))


class SinglePlayerEnv(gymnasium.Env):
    """`player` of `game` against `opponents` (a dict by seat of policies; every seat
    not given plays `RandomPolicy`, seeded from `reset`'s seed). Other keywords go to
    `ShadowjudgeAEC`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = "standard",
        player: Optional[str] = None,
        opponents: Optional[Dict[str, Policy]] = None,
        render_mode: Optional[str] = None,
        **kwargs,
    ):
        self.aec = ShadowjudgeAEC(game, **kwargs)
        agents = self.aec.possible_agents
        self.player = player if player is not None else agents[0]
        if self.player not in agents:
            raise ValueError(f"no player called `{self.player}`: the players are {', '.join(agents)}")
        self.given = dict(opponents or {})
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.player)
        self.action_space = self.aec.action_space(self.player)

    def _play_others(self) -> float:
        """The opponents move until it is the player's turn or the game is over for them;
        the player's reward meanwhile."""
        reward = 0.0
        aec = self.aec
        while self.player in aec.agents:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                if agent == self.player:
                    break
                aec.step(None)
            elif agent == self.player:
                break
            else:
                aec.step(self.opponents[agent](aec.observe(agent), aec.infos[agent]))
            reward += aec.rewards.get(self.player, 0.0)
        return reward

    def _seat_done(self):
        aec = self.aec
        if self.player not in aec.agents:
            return True, False
        return aec.terminations[self.player], aec.truncations[self.player]

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        base = seed if seed is not None else random.getrandbits(32)
        self.opponents = {
            a: self.given.get(a) or RandomPolicy(base + i)
            for i, a in enumerate(self.aec.possible_agents)
            if a != self.player
        }
        self.aec.reset(seed=base)
        self._play_others()
        return self.aec.observe(self.player), dict(self.aec.infos[self.player])

    def step(self, action):
        candidates = self.aec.infos[self.player]["legal_actions"]
        index = int(action)
        invalid = not 0 <= index < len(candidates)
        self.aec.step(0 if invalid else index)
        reward = self.aec.rewards.get(self.player, 0.0) + self._play_others()
        terminated, truncated = self._seat_done()
        info = dict(self.aec.infos.get(self.player, {"legal_actions": []}), invalid_action=invalid)
        return self.aec.observe(self.player), reward, terminated, truncated, info

    def render(self):
        if self.render_mode == "ansi":
            return self.aec.table.text()
        return None
