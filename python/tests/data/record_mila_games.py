"""Write saved games with MILA's `diplomacy` 1.1.2 (not with this package): random orders,
seeded, one game a line; the last game drawn by `draw()`.

    python record_mila_games.py mila_games.jsonl.gz   # in a venv with `pip install diplomacy==1.1.2`
"""
import gzip, json, random, sys

from diplomacy import Game
from diplomacy.utils.export import to_saved_game_format


def game(seed, phases, drawn=False):
    rng = random.Random(seed)
    g = Game()
    for _ in range(phases):
        if g.is_game_done:
            break
        possible = g.get_all_possible_orders()
        for name in g.powers:
            locs = g.get_orderable_locations(name)
            g.set_orders(name, [rng.choice(possible[loc]) for loc in locs if possible[loc]])
        g.process()
    if drawn:
        g.draw()
    return to_saved_game_format(g)


if __name__ == "__main__":
    games = [game(1, 40), game(2, 40), game(3, 25, drawn=True)]
    with gzip.open(sys.argv[1], "wt") as out:
        for saved in games:
            out.write(json.dumps(saved) + "\n")
