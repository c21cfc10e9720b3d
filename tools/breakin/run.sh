#!/usr/bin/env bash
# Break-in run: SIGKILL the judge's writing commands at random moments on a scratch judge,
# deliver mail in parallel, and check that nothing acknowledged is lost, nothing is applied
# twice, `verify` passes and every game opens. See README.md in this folder.
#
#   tools/breakin/run.sh            # from the repository root; ROUNDS=400 by default
#   ROUNDS=100 SHADOWJUDGE=/path/to/shadowjudge tools/breakin/run.sh
#
# Exit 0 when every check held; 1 and the failed checks otherwise. The scratch judge is
# removed at the end unless KEEP=1 (its path is printed).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${ROUNDS:-400}
SEED_RANDOM=${SEED_RANDOM:-$$}
RANDOM=$SEED_RANDOM
if [ -z "${SHADOWJUDGE:-}" ]; then
    (cd "$ROOT" && cargo build --quiet) || exit 2
    SHADOWJUDGE="$ROOT/target/debug/shadowjudge"
fi
BIN=$SHADOWJUDGE
WORK=$(mktemp -d "${TMPDIR:-/tmp}/breakin.XXXXXX")
J=$WORK/judge
mkdir -p "$J"
export SHADOWJUDGE_HOME=$J

FAILURES=0
fail() {
    echo "FAILED: $*"
    FAILURES=$((FAILURES + 1))
}

# The judge's clock, moved forward by hand: every command runs at SHADOWJUDGE_NOW.
NOW_S=$(date -d 2026-01-01T00:00:00Z +%s)
now() { date -u -d "@$NOW_S" +%Y-%m-%dT%H:%M:%SZ; }
advance() { NOW_S=$((NOW_S + $1)); }
sj() { SHADOWJUDGE_NOW=$(now) "$BIN" "$@"; }

# Run a command in the background and SIGKILL it after a random 0..$1 ms. RC is its exit
# status (137: killed); KILLS counts the kills that landed.
KILLS=0
RUNS=0
killed_run() {
    local max=$1 input=$2
    shift 2
    local ms=$((RANDOM % (max + 1)))
    SHADOWJUDGE_NOW=$(now) "$BIN" "$@" <"$input" >>"$WORK/out.log" 2>&1 &
    local pid=$!
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null
    RC=$?
    RUNS=$((RUNS + 1))
    if [ "$RC" = 137 ]; then KILLS=$((KILLS + 1)); fi
}

# Milliseconds one clean run of a command takes, to aim the kills inside it.
time_ms() {
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# How many mails in the outbox (decoded) contain each of the phrases given.
count_mails() {
    python3 - "$J/outbox" "$@" <<'PY'
import email, os, sys
box, phrases = sys.argv[1], sys.argv[2:]
n = [0] * len(phrases)
for name in os.listdir(box):
    m = email.message_from_binary_file(open(os.path.join(box, name), "rb"))
    text = "".join(str(m[h] or "") for h in ("Subject", "In-Reply-To")) + "\n"
    for part in m.walk():
        if part.get_content_type() == "text/plain":
            text += part.get_payload(decode=True).decode("utf-8", "replace")
    for i, p in enumerate(phrases):
        n[i] += p in text
print(" ".join(map(str, n)))
PY
}

message() { # from id body...
    printf 'From: %s\r\nTo: judge@example.org\r\nSubject: breakin\r\nMessage-ID: <%s>\r\n\r\n%s' "$1" "$2" "$3"
}

# ---------------------------------------------------------------------------------------
# The scratch judge: a standard game `dip` (7 players and a master) and an Overdue game
# `ov` (3 players) run by mail; a Duplexity game `dx` outside it, played from the
# example's turn files by `submit`.
cat >"$J/judge.toml" <<'EOF'
[mail]
address = "judge@example.org"

[deadlines]
tick_minutes = 1440
EOF
cat >"$WORK/players.txt" <<'EOF'
france, Ann, ann@x.org
italy, Bob, bob@x.org
germany, Cy, cy@x.org
england, Di, di@x.org
russia, Ed, ed@x.org
turkey, Fay, fay@x.org
austria, Gus, gus@x.org
EOF
printf 'ann, ann@x.org\nbob, bob@x.org\ncy, cy@x.org\n' >"$WORK/p3.txt"
(cd "$J" && sj new dip --judge . --players "$WORK/players.txt" --master gm@x.org >/dev/null) || exit 2
(cd "$J" && sj new ov --judge . --game overdue --players "$WORK/p3.txt" --master gm@x.org \
    --seed "$(printf 'ab%.0s' $(seq 32))" >/dev/null) || exit 2
PW=$(sj mail password dip france | sed -n 's/.*SIGNON france@dip //p')
TPW=$(sj mail password dip turkey | sed -n 's/.*SIGNON turkey@dip //p')
[ -n "$PW" ] && [ -n "$TPW" ] || { echo "no passwords"; exit 2; }
DX=$WORK/dx
DXSEED=00000000000000000000000000000000000000000000000000000000000d0e11
sj new "$DX" --name duplexity-example --game duplexity --players "$ROOT/examples/duplexity/players.txt" \
    --seed "$DXSEED" --option max_rounds=6 >/dev/null || exit 2
: >"$WORK/empty"
DIP=$J/games/dip

# ---------------------------------------------------------------------------------------
# (a) Kills. Each round picks one of: a new message by `mail ingest` (killed deliveries
# are delivered again, as an MTA does, until one exits 0; an acknowledged one is
# sometimes delivered once more), `mail tick` (the clock moves 13 hours), France's
# orders by `submit`, `adjudicate --force`, or the next Duplexity turn file by `submit`.
echo "scratch judge: $WORK"
echo "== (a) $ROUNDS rounds of SIGKILLs at random moments"
m=0
msg_file() { message ann@x.org "k$1@breakin" "SIGNON france@dip $PW
PRESS TO england
token-k$1
ENDPRESS
"; }
msg_file 0 >"$WORK/m.eml"
T_INGEST=$(time_ms sj mail ingest <"$WORK/m.eml")
T_TICK=$(time_ms sj mail tick)
printf 'A par h\nA mar h\nF bre h\n' >"$WORK/orders.txt"
T_SUBMIT=$(time_ms sj submit "$DIP" --power france "$WORK/orders.txt")
T_ADJ=$(time_ms sj adjudicate "$DIP" --force)
echo "clean runs take (ms): ingest $T_INGEST, tick $T_TICK, submit $T_SUBMIT, adjudicate $T_ADJ"
aim() { echo $((2 * $1 + 10)); }

ACK_SUBMIT=0 TRY_SUBMIT=0 ACK_ADJ=0 TRY_ADJ=0 ACKED_MSGS=1
SUB0=$(grep -c '"type":"submitted"' "$DIP/journal.jsonl")
ADJ0=$(grep -c '"type":"adjudicated"' "$DIP/journal.jsonl")
DX_TURNS=("$ROOT"/orders/duplexity/*.txt)
dx_next=0
DX_SAME=0
for ((round = 1; round <= ROUNDS; round++)); do
    advance 60
    case $((RANDOM % 5)) in
    0)
        m=$((m + 1))
        msg_file "$m" >"$WORK/m$m.eml"
        for ((try = 0; try < 50; try++)); do
            # Each delivery again waits longer before its kill (a loaded machine is slow).
            killed_run "$(($(aim "$T_INGEST") * (try + 1)))" "$WORK/m$m.eml" mail ingest
            [ "$RC" = 0 ] && break
            [ "$RC" = 137 ] || fail "ingest of k$m exited $RC"
        done
        [ "$RC" = 0 ] && ACKED_MSGS=$((ACKED_MSGS + 1))
        if [ $((RANDOM % 4)) = 0 ]; then sj mail ingest <"$WORK/m$m.eml" >>"$WORK/out.log" 2>&1; fi
        ;;
    1)
        advance $((13 * 3600))
        killed_run "$(aim "$T_TICK")" "$WORK/empty" mail tick
        [ "$RC" = 0 ] || [ "$RC" = 137 ] || fail "mail tick exited $RC"
        ;;
    2)
        TRY_SUBMIT=$((TRY_SUBMIT + 1))
        killed_run "$(aim "$T_SUBMIT")" "$WORK/empty" submit "$DIP" --power france "$WORK/orders.txt"
        # Refused (a phase without movement orders, a unit gone): acknowledged as nothing.
        if [ "$RC" = 0 ]; then ACK_SUBMIT=$((ACK_SUBMIT + 1)); fi
        ;;
    3)
        TRY_ADJ=$((TRY_ADJ + 1))
        killed_run "$(aim "$T_ADJ")" "$WORK/empty" adjudicate "$DIP" --force
        if [ "$RC" = 0 ]; then ACK_ADJ=$((ACK_ADJ + 1)); fi
        ;;
    4)
        [ "$dx_next" -lt "${#DX_TURNS[@]}" ] || continue
        turn=${DX_TURNS[$dx_next]}
        player=$(basename "$turn" .txt | cut -d- -f2)
        before=$(lines "$DX/journal.jsonl")
        killed_run "$(aim "$T_SUBMIT")" "$WORK/empty" submit "$DX" --player "$player" "$turn"
        after=$(lines "$DX/journal.jsonl")
        # Applied (the journal has the turn) or not at all; as a careful user, look before
        # sending it again.
        if [ "$after" -gt "$before" ]; then
            dx_next=$((dx_next + 1))
        elif [ "$RC" = 0 ]; then
            fail "dx: $turn acknowledged but not in the journal"
        fi
        ;;
    esac
done
# Whatever is left: the rest of the Duplexity game, unkilled, and a clean tick that
# recovers abandoned messages and mails what is owed.
while [ "$dx_next" -lt "${#DX_TURNS[@]}" ]; do
    turn=${DX_TURNS[$dx_next]}
    sj submit "$DX" --player "$(basename "$turn" .txt | cut -d- -f2)" "$turn" >>"$WORK/out.log" 2>&1 ||
        fail "dx: $turn refused after the kills"
    dx_next=$((dx_next + 1))
done
advance 600
sj mail tick >>"$WORK/out.log" 2>&1 || fail "the final tick failed"
advance 600
sj mail tick >>"$WORK/out.log" 2>&1 || fail "the second final tick failed"

echo "runs $RUNS, kills $KILLS; ingest: $m messages; submit: $ACK_SUBMIT of $TRY_SUBMIT acknowledged;" \
    "adjudicate: $ACK_ADJ of $TRY_ADJ acknowledged"

# Every game opens; the small games verify (the Overdue seed revealed for it).
for g in "$DIP" "$J/games/ov" "$DX"; do
    sj status "$g" >/dev/null 2>>"$WORK/out.log" || fail "$(basename "$g") does not open"
done
sj reveal --force "$J/games/ov" >/dev/null 2>&1
sj verify "$J/games/ov" >>"$WORK/out.log" 2>&1 || fail "ov: verify failed"
sj verify "$DX" >>"$WORK/out.log" 2>&1 || fail "dx: verify failed"

# dx was played to the end through the kills: the same game as a clean run of its files.
CLEAN=$WORK/dx-clean
sj new "$CLEAN" --name duplexity-example --game duplexity --players "$ROOT/examples/duplexity/players.txt" \
    --seed "$DXSEED" --option max_rounds=6 >/dev/null
for turn in "${DX_TURNS[@]}"; do
    sj submit "$CLEAN" --player "$(basename "$turn" .txt | cut -d- -f2)" "$turn" >/dev/null 2>&1
done
diff <(sj status "$CLEAN" --json | grep -v deadline) <(sj status "$DX" --json | grep -v deadline) >/dev/null ||
    fail "dx after the kills differs from a clean run"

# The journals: nothing applied twice, nothing acknowledged lost, results mailed.
python3 - "$J" "$m" "$ACK_SUBMIT" "$ACK_ADJ" "$SUB0" "$ADJ0" "$TRY_SUBMIT" "$TRY_ADJ" <<'EOF' || FAILURES=$((FAILURES + 1))
import json, os, sys, email, collections
judge, msgs, ack_sub, ack_adj, sub0, adj0, try_sub, try_adj = sys.argv[1], *map(int, sys.argv[2:])
bad = []
def journal(game):
    return [json.loads(l) for l in open(os.path.join(judge, "games", game, "journal.jsonl")) if l.strip()]
for game in ("dip", "ov"):
    tags = collections.Counter(r["msg"] for r in journal(game) if r.get("msg"))
    bad += [f"{game}: message item {t} applied {n} times" for t, n in tags.items() if n > 1]
dip = journal("dip")
press = collections.Counter(r["entry"]["text"].strip() for r in dip if r["entry"]["type"] == "press")
for k in range(msgs + 1):
    if press[f"token-k{k}"] != 1:
        bad.append(f"message k{k}: its press is in the journal {press[f'token-k{k}']} times")
subs = sum(r["entry"]["type"] == "submitted" and not r.get("msg") for r in dip) - sub0
if not ack_sub <= subs <= try_sub:
    bad.append(f"submit: {subs} in the journal for {ack_sub} acknowledged of {try_sub}")
phases = [json.dumps(r["entry"]["phase"], sort_keys=True) for r in dip if r["entry"]["type"] == "adjudicated"]
if len(set(phases)) != len(phases):
    bad.append("a phase was adjudicated twice")
# Mail: every message answered, every adjudication's results to all 8 at least once and at
# most twice, nothing left owed or marked.
outbox = os.path.join(judge, "outbox")
replies, results = collections.Counter(), collections.Counter()
for name in os.listdir(outbox):
    m = email.message_from_binary_file(open(os.path.join(outbox, name), "rb"))
    if m["In-Reply-To"]:
        replies[m["In-Reply-To"].strip("<> ")] += 1
    if "results of" in (m["Subject"] or "") and m["Subject"].startswith("dip:"):
        results[(m["Subject"], m["To"])] += 1
for k in range(msgs + 1):
    if replies[f"k{k}@breakin"] < 1:
        bad.append(f"message k{k} was never answered")
by_subject = collections.Counter(s for s, _ in results)
twice = sum(n == 2 for n in results.values())
more = [(s, t, n) for (s, t), n in results.items() if n > 2]
bad += [f"{t} had {s} {n} times" for s, t, n in more]
bad += [f"{s} went to {n} of 8" for s, n in by_subject.items() if n != 8]
if len(by_subject) != len(phases):
    bad.append(f"{len(phases)} phases adjudicated, results of {len(by_subject)} mailed")
mailed = json.load(open(os.path.join(judge, "games", "dip", "mailed.json")))
if mailed.get("sending") or any(r.get("retry") for r in mailed["results"].values()):
    bad.append(f"dip: mailed.json still owes: {mailed}")
owed = os.path.join(judge, "owed")
if [f for f in (os.listdir(owed) if os.path.isdir(owed) else []) if not f.startswith(".")]:
    bad.append("owed/ is not empty after the last tick")
print(f"journal: {msgs + 1} messages, {subs} submissions, {len(phases)} adjudications; "
      f"results mails: {sum(results.values())}, {twice} sent twice")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
EOF

# ---------------------------------------------------------------------------------------
# (b) 100 wrong sign-ons at once for Turkey, the right password 41st: at most 5 passwords
# are checked wrong, the master is told once.
echo "== (b) 100 sign-ons for turkey@dip delivered at once"
advance 600
mkdir -p "$WORK/b"
for i in $(seq 1 100); do
    pw="guess$i"
    [ "$i" = 41 ] && pw=$TPW
    message "fay$i@x.org" "b$i@breakin" "SIGNON turkey@dip $pw
PRESS TO england
token-b$i
ENDPRESS
" >"$WORK/b/$i.eml"
done
before_notices=$(count_mails 'sign-on as Turkey closed')
pids=()
for i in $(seq 1 100); do
    sj mail ingest <"$WORK/b/$i.eml" >>"$WORK/out.log" 2>&1 &
    pids+=($!)
done
bfail=0
for p in "${pids[@]}"; do wait "$p" || bfail=$((bfail + 1)); done
[ "$bfail" = 0 ] || fail "$bfail of 100 parallel deliveries did not exit 0"
read -r wrong closed notices < <(count_mails 'wrong password for Turkey' 'is closed after 5 wrong passwords' \
    'sign-on as Turkey closed')
notices=$((notices - before_notices))
signed=$(grep -c '"text":"token-b' "$DIP/journal.jsonl")
echo "answers: $wrong wrong password, $closed closed, $signed signed on; master's notices: $notices"
[ "$wrong" -le 5 ] || fail "$wrong passwords checked wrong (at most 5)"
[ "$notices" = 1 ] || fail "the master was told $notices times (once)"
[ $((wrong + closed + signed)) = 100 ] || fail "$((wrong + closed + signed)) of 100 answered"

# ---------------------------------------------------------------------------------------
# (c) One message delivered 20 times at once: applied once, answered once.
echo "== (c) one message delivered 20 times at once"
advance 600
message ann@x.org "c1@breakin" "SIGNON france@dip $PW
PRESS TO england
token-c1
ENDPRESS
" >"$WORK/c.eml"
pids=()
for i in $(seq 1 20); do
    sj mail ingest <"$WORK/c.eml" >>"$WORK/out.log" 2>&1 &
    pids+=($!)
done
cfail=0
for p in "${pids[@]}"; do wait "$p" || cfail=$((cfail + 1)); done
[ "$cfail" = 0 ] || fail "$cfail of 20 parallel deliveries did not exit 0"
applied=$(grep -c '"text":"token-c1' "$DIP/journal.jsonl")
answered=$(count_mails '<c1@breakin>')
echo "applied $applied times, answered $answered times"
[ "$applied" = 1 ] || fail "the message was applied $applied times"
[ "$answered" = 1 ] || fail "the message was answered $answered times"

echo "== $RUNS runs, $KILLS kills, $FAILURES failures (random seed $SEED_RANDOM)"
if [ "${KEEP:-0}" = 1 ]; then echo "kept: $WORK"; else rm -rf "$WORK"; fi
[ "$FAILURES" = 0 ]
