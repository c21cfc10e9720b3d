#!/bin/sh
# Play the Duplexity example game into DIR (default: ./duplexity-example), one turn file
# at a time, then check every roll. Run from the repository root:
#   sh examples/duplexity/play.sh /tmp/duplexity-example
set -e
DIR=${1:-duplexity-example}
SJ=${SHADOWJUDGE:-"cargo run --quiet --"}
$SJ new "$DIR" --name duplexity-example --game duplexity \
    --players examples/duplexity/players.txt \
    --seed 00000000000000000000000000000000000000000000000000000000000d0e11 \
    --option max_rounds=6
for turn in orders/duplexity/*.txt; do
    player=$(basename "$turn" .txt | cut -d- -f2)
    echo "== $turn ($player)"
    $SJ submit "$DIR" --player "$player" "$turn" | sed -n '/^line/,/^$/p'
done
$SJ verify "$DIR"
