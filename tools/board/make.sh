#!/bin/sh
# Make maps/$VARIANT/geometry.toml (VARIANT: standard unless set) from Natural Earth's
# coastlines and seeds_$VARIANT.py (see README.md).
# LAND: the path of land-50m.json from the npm package world-atlas.
set -e
: "${LAND:?set LAND to world-atlas/land-50m.json}"
cd "$(dirname "$0")"
python3 gen.py
python3 out.py 0.06
python3 place.py
python3 write.py
