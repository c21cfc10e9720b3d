"""The games behind the environments: whose decision it is, its candidate lines, what each
player may see, and the encoding of a view as bytes (needs numpy)."""

import json
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

import shadowjudge
from shadowjudge.envs import CENTERS, LOCATIONS, power_names

NO_LINE = ""  # action 0 everywhere: no order for this unit, or wait for the deadline


def dumps(value) -> str:
    """Compact JSON, keys sorted: the form of every view."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def encode(view: Union[Dict[str, Any], str], size: int) -> np.ndarray:
    """A view (or its JSON) as compact JSON's UTF-8 bytes, padded with zeros to `size`."""
    data = (view if isinstance(view, str) else dumps(view)).encode()
    if len(data) > size:
        raise ValueError(f"an observation takes {len(data)} bytes, more than obs_bytes={size}: give a larger obs_bytes")
    out = np.zeros(size, dtype=np.uint8)
    out[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return out


def decode(observation) -> Dict[str, Any]:
    """The view an observation encodes (its `"observation"` part, or the whole dict)."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    data = np.asarray(observation, dtype=np.uint8).tobytes().rstrip(b"\0")
    return json.loads(data.decode())


ROW = {name: i for i, name in enumerate(LOCATIONS)}
# Columns of a location's row: army, fleet, dislodged unit, center owned, each by power (7
# each), then a center nobody owns, the place to order now, a place the power has ordered.
FEATURES = 7 * 4 + 3
PHASE_TYPES = ("movement", "retreats", "adjustments")


def located(name: str):
    """`STP/SC (B)` -> (board, row): the board 0 unless it is named."""
    board = 0
    if name.endswith(")"):
        name, board = name[:-4], "AB".index(name[-2])
    return board, ROW[name]


def registry_entry(name: str) -> Dict[str, Any]:
    for entry in shadowjudge.games():
        if entry["name"] == name:
            return entry
    names = ", ".join(g["name"] for g in shadowjudge.games())
    raise ValueError(f"unknown game `{name}`: the judge runs {names}")


class DiplomacyTable:
    """A `Game` (standard or Shadow Worlds) as a sequence of decisions, one per orderable
    place: the power's order there, from the place's possible orders (sorted), or none.
    The orders of a phase are given together and the phase processed once the last place
    is decided; in a Winter each build site (each unit, for removals) is a decision, and
    orders beyond the adjustments due are ignored in turn, as the judge does. Each power
    sees the public position and its own orders, never another's."""

    def __init__(self, variant: str, rules=None, max_phases: Optional[int] = None, start: Optional[str] = None):
        self.variant, self.rules, self.max_phases, self.start = variant, rules, max_phases, start
        self.game = self.new_game()
        if self.game.variant != variant:
            raise ValueError(f"the start position is a game of {self.game.variant}, not {variant}")
        self.agents = power_names(self.game)
        self.boards = 2 if variant == "shadow-worlds" else 1

    def new_game(self):
        if self.start is not None:
            return shadowjudge.Game.from_json(self.start)
        return shadowjudge.Game(self.variant, self.rules)

    def reset(self, seed: Optional[int]) -> None:
        # The game rolls no dice: the seed has nothing to choose.
        self.game = self.new_game()
        self.phases = 0
        self.start_phase()

    def start_phase(self) -> None:
        """The decisions of the phase; a phase with none is processed as it is."""
        while True:
            # The public position, read once a phase: as get_state() gives it, as JSON, as numbers.
            self.state: Optional[Dict[str, Any]] = None
            self.state_json: Optional[str] = None
            self.planes: Optional[np.ndarray] = None
            self.chosen: Dict[str, Dict[str, str]] = {power: {} for power in self.agents}
            possible = self.game.get_all_possible_orders()
            orderable = self.game.get_orderable_locations()
            self.possible = {loc: sorted(possible[loc]) for locs in orderable.values() for loc in locs}
            self.queue: List[Tuple[str, str]] = [
                (power, loc) for power in self.agents for loc in sorted(orderable.get(power, [])) if self.possible[loc]
            ]
            if self.done:
                self.queue = []
            if self.queue or self.done or self.truncated:
                return
            self.game.process()
            self.phases += 1

    @property
    def done(self) -> bool:
        return self.game.is_game_done

    @property
    def truncated(self) -> bool:
        return self.max_phases is not None and self.phases >= self.max_phases and not self.done

    def eliminated(self) -> List[str]:
        return list(self.game.eliminated)

    def decision(self) -> Optional[Tuple[str, List[str]]]:
        """(power, candidates) of the next place, candidates[0] the empty line (no order)."""
        if not self.queue:
            return None
        power, loc = self.queue[0]
        return power, [NO_LINE] + self.possible[loc]

    def act(self, power: str, line: str) -> None:
        _, loc = self.queue.pop(0)
        if line:
            self.chosen[power][loc] = line
        if not self.queue:
            self.process()

    def give(self, orders: Dict[str, Sequence[str]]) -> None:
        """A whole phase at once (the parallel environment): each power's orders, then process."""
        for power, lines in orders.items():
            for loc, line in zip(self.locations(power), lines):
                if line:
                    self.chosen[power][loc] = line
        self.queue = []
        self.process()

    def locations(self, power: str) -> List[str]:
        return [loc for p, loc in self.queue if p == power]

    def process(self) -> None:
        for power, orders in self.chosen.items():
            if orders:
                self.game.set_orders(power, list(orders.values()))
        self.game.process()
        self.phases += 1
        self.start_phase()

    def public(self) -> Dict[str, Any]:
        if self.state is None:
            self.state = self.game.get_state()
        return self.state

    def text(self) -> str:
        """The phase, and each power's units and number of centers."""
        state = self.public()
        lines = [state["phase"]]
        for p in self.agents:
            lines.append(
                f"{p}: {', '.join(state['units'].get(p, [])) or 'no units'}; {len(state['centers'].get(p, []))} centers"
            )
        return "\n".join(lines)

    def deciding(self, power: str) -> Optional[str]:
        """The place `power` decides now, if the decision is its own."""
        return self.queue[0][1] if self.queue and self.queue[0][0] == power else None

    def view(self, power: str, to_order=None) -> Dict[str, Any]:
        """What `power` sees: the public position, the place it decides now (`to_order`:
        by default the AEC decision's, if its own) and its orders of the phase so far."""
        return {
            "you": power,
            "state": self.public(),
            "phase_type": self.game.phase_type,
            "to_order": self.deciding(power) if to_order is None else to_order,
            "your_orders": sorted(self.chosen.get(power, {}).values()),
        }

    def view_json(self, power: str, to_order=None) -> str:
        """`dumps(self.view(power, to_order))`, the position's JSON made once a phase."""
        if self.state_json is None:
            self.state_json = dumps(self.public())
        mine = self.view(power, to_order)
        del mine["state"]
        text = dumps(mine)
        # Keys sorted: phase_type, state, to_order, ...
        cut = text.index(',"to_order":')
        return f'{text[:cut]},"state":{self.state_json}{text[cut:]}'

    def board_size(self) -> int:
        return self.boards * len(LOCATIONS) * FEATURES + 7 + len(PHASE_TYPES) + 2

    def board(self, power: str, to_order: Sequence[str]) -> np.ndarray:
        """The public position as numbers (0 or 1, and the year), `power`'s places `to_order`
        and the places it has ordered: for each board, a row per location (`LOCATIONS`) of
        `FEATURES` columns, flattened; then who `power` is, the phase type, the season and
        (year - 1901) / 100."""
        if self.planes is None:
            self.planes = self.public_planes()
        planes = self.planes.copy()
        for place in to_order:
            b, row = located(place)
            planes[b, row, 29] = 1
        for place in self.chosen.get(power, {}):
            b, row = located(place)
            planes[b, row, 30] = 1
        extra = np.zeros(7 + len(PHASE_TYPES) + 2, dtype=np.float32)
        extra[self.agents.index(power)] = 1
        extra[7 + PHASE_TYPES.index(self.game.phase_type)] = 1
        phase = self.game.get_current_phase()  # S1901M
        extra[-2] = phase[0] == "F"
        extra[-1] = (int(phase[1:5]) - 1901) / 100
        return np.concatenate([planes.reshape(-1), extra])

    def public_planes(self) -> np.ndarray:
        state = self.public()
        planes = np.zeros((self.boards, len(LOCATIONS), FEATURES), dtype=np.float32)
        boards = [state] if self.boards == 1 else [state["boards"][b] for b in "AB"]
        for b, position in enumerate(boards):
            for p, power_name in enumerate(self.agents):
                for unit in position["units"].get(power_name, []):
                    dislodged = unit.startswith("*")
                    kind, place = unit.lstrip("*").split(" ", 1)
                    column = 14 + p if dislodged else (p if kind == "A" else 7 + p)
                    planes[b, ROW[place], column] = 1
                for center in position["centers"].get(power_name, []):
                    planes[b, ROW[center], 21 + p] = 1
        owned = planes[:, :, 21:28].sum(axis=2)
        for name in CENTERS:
            planes[:, ROW[name], 28] = owned[:, ROW[name]] == 0
        return planes

    def rewards(self) -> Dict[str, float]:
        """+1 to a solo winner and -1 to every other power; 0 to all without a winner."""
        winner = self.game.winner
        if not winner:
            return {p: 0.0 for p in self.agents}
        return {p: 1.0 if p == winner else -1.0 for p in self.agents}


class TurnTable:
    """A `TurnGame` of the registry as a sequence of decisions: the player awaited (taken in
    turn among those awaited together) chooses one of the lines the judge would accept now,
    or the empty line: wait for the deadline. Once every awaited player has waited, the
    deadline comes (`force()`). Each player sees the public status (`status --json`, which
    shows no sealed bid) and the lines they sent and the judge accepted, never another's."""

    SENT_KEPT = 4

    def __init__(self, name: str, players=None, options=None):
        self.name, self.options = name, options
        entry = registry_entry(name)
        self.players = players if players is not None else entry["players"][0]
        self.game = shadowjudge.TurnGame(name, 0, players=self.players, options=options)
        self.agents = list(self.game.players)

    def reset(self, seed: Optional[int]) -> None:
        if seed is None:
            seed = random.getrandbits(64)
        self.game = shadowjudge.TurnGame(self.name, seed, players=self.players, options=self.options)
        self.waited: set = set()
        self.last: Optional[str] = None
        self.sent: Dict[str, List[str]] = {a: [] for a in self.agents}
        self.current: Optional[Tuple[str, List[str]]] = None

    @property
    def done(self) -> bool:
        return self.game.is_done

    truncated = False

    def eliminated(self) -> List[str]:
        return []

    def decision(self) -> Optional[Tuple[str, List[str]]]:
        if self.current is None:
            self.current = self.choose()
        return self.current

    def choose(self) -> Optional[Tuple[str, List[str]]]:
        for _ in range(10_000):
            if self.game.is_done:
                return None
            awaited = [p for p in self.game.to_play if p in self.agents and p not in self.waited]
            if awaited:
                # Round the table from the seat after the last to act.
                start = self.agents.index(self.last) + 1 if self.last in self.agents else 0
                seats = self.agents[start:] + self.agents[:start]
                agent = next(p for p in seats if p in awaited)
                return agent, [NO_LINE] + list(self.game.legal_actions(agent))
            self.game.force()
            self.waited.clear()
        raise RuntimeError(f"{self.name}: 10,000 deadlines passed and no player was awaited")

    def act(self, agent: str, line: str) -> None:
        self.current = None
        self.last = agent
        if line and self.game.step(line, player=agent)["accepted"]:
            self.sent[agent] = (self.sent[agent] + [line])[-self.SENT_KEPT :]
            self.waited.clear()
        else:
            self.waited.add(agent)

    def view(self, agent: str) -> Dict[str, Any]:
        return {"you": agent, "status": self.game.observation(), "you_sent": self.sent[agent]}

    def view_json(self, agent: str) -> str:
        return dumps(self.view(agent))

    def text(self) -> str:
        return self.game.report_text()

    def rewards(self) -> Dict[str, float]:
        """+1 to each winner and -1 to every other player; 0 to all when nobody won."""
        winners = self.game.winners or []
        if not winners:
            return {p: 0.0 for p in self.agents}
        return {p: 1.0 if p in winners else -1.0 for p in self.agents}


def table(game: str, *, players=None, options=None, rules=None, max_phases=None, start=None):
    """The table for a game of the registry: Diplomacy's powers on `Game`, others on `TurnGame`."""
    entry = registry_entry(game)
    if entry["powers"]:
        if players is not None or options is not None:
            raise ValueError(f"{game} seats Diplomacy's seven powers: players and options are for the small games")
        return DiplomacyTable(game, rules, max_phases, start)
    if rules is not None or max_phases is not None or start is not None:
        raise ValueError(f"rules, max_phases and start are for Diplomacy; {game} takes players and options")
    return TurnTable(game, players, options)
