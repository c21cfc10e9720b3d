"""Record seeded games (orders given, acknowledgements, reports, outcomes, text reports)."""
import json, random, sys, shadowjudge

PLACES = ["PAR", "MOS", "LON", "BUR", "NTH", "MAO", "SPA/NC", "XYZ", "TYR", "BOH"]

def game(variant, seed, phases):
    rng = random.Random(seed)
    g = shadowjudge.Game(variant)
    out = []
    for _ in range(phases):
        if g.is_game_done:
            break
        possible = g.get_all_possible_orders()
        given = {}
        for power, locs in sorted(g.get_orderable_locations().items()):
            orders = [rng.choice(possible[loc]) for loc in locs]
            if orders and rng.random() < 0.3:
                # A move of one of its units somewhere it may not go, and a line not understood.
                unit = " ".join(orders[0].split()[:2])
                orders.append(f"{unit} - {rng.choice(PLACES)}")
                orders.append(rng.choice(["A PAR - ", "F NTH C", "HOLD", "A BUR S"]))
            if rng.random() < 0.1:
                orders = orders[: len(orders) // 2]  # some units left without orders
            given[power] = orders
        phase = {"phase": g.phase, "orders": given, "acks": {}}
        for power, orders in given.items():
            phase["acks"][power] = dict(g.set_orders(power, orders))
        phase["report"] = dict(g.process())
        phase["outcomes"] = g.outcomes
        phase["text"] = g.report_text()
        out.append(phase)
    return {"variant": variant, "phases": out}

if __name__ == "__main__":
    games = [game("standard", 7, 40), game("shadow-worlds", 5, 12)]
    json.dump(games, open(sys.argv[1], "w"), separators=(",", ":"))
