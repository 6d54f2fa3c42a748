#!/usr/bin/env bash
# cluster-netns: three kmc nodes on three hosts of their own, for real: each in a network
# namespace with its own address on a private /24 (10.213.0.1-3), joined by veth pairs to a
# bridge in a fourth namespace. A search runs across them from one namespace; during it one
# node is cut off (the bridge's end of its veth set down: the process lives on but no packet
# reaches it or leaves it), and the search must go on with the two nodes left and print what
# one process prints (exit code, verdict, distinct states, depth, the counterexample's
# trace.txt and trace.itf.json byte for byte). The link is then brought back up, and the next
# search must again take all three nodes (the node cut off noticed it was dropped, and nothing
# of the attempt it was part of reaches a later one) and print the same.
#
# Usage: scripts/cluster-netns.sh [KMC_BINARY]   (make cluster-netns; without a binary it
#        builds one with $GO, default go, after the probe below)
#        scripts/cluster-netns.sh --probe        only the probe: exit 0 when this machine can
#                                                run it, else 2 with the reason (.ci/run)
#   KMC_FAULT_SEED   repeats a run's cuts (the victim, the coordinator's namespace, the level
#                    after whose end it comes: the first to reach 20% to 70% of the distinct
#                    states, and the pause in the next)
#   KMC_NETNS_CUTS   cuts per check (default 3)
#   KMC_NETNS_CHECKS which checks: twophase, kafka or both (default both)
#
# Exit codes: 0 every search printed the single process's output; 1 a difference (or a
# search that did not end); 2 this machine cannot create network namespaces (not root, no
# CAP_NET_ADMIN, no iproute2): the message says why and nothing was run.
#
# Everything it creates (the namespaces, whose deletion takes their veths and the bridge
# with them, the processes it started, its temporary folder) is removed on exit; it deletes
# nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

prog=cluster-netns
say() { printf '%s %s: %s\n' "$(date -u +%H:%M:%S)" "$prog" "$*" >&2; }

# --- can this machine do it? (exit 2 with the reason when it cannot) -----------------------
if ! command -v ip >/dev/null; then
	echo "$prog: not run: the ip command (iproute2) is not installed" >&2
	exit 2
fi
probe="kmcprobe$$"
if ! err=$(ip netns add "$probe" 2>&1); then
	echo "$prog: not run: this machine cannot create network namespaces: 'ip netns add $probe' failed: $err (it needs root, or CAP_NET_ADMIN and CAP_SYS_ADMIN; user id $(id -u))" >&2
	exit 2
fi
if ! err=$(ip netns exec "$probe" true 2>&1); then
	ip netns del "$probe" 2>/dev/null || true
	echo "$prog: not run: 'ip netns exec' into a new network namespace failed: $err (it needs CAP_SYS_ADMIN; user id $(id -u))" >&2
	exit 2
fi
if ! err=$(ip -n "$probe" link add kmcbr0 type bridge 2>&1); then
	ip netns del "$probe" 2>/dev/null || true
	echo "$prog: not run: creating a bridge in a new network namespace failed: $err (it needs CAP_NET_ADMIN and the kernel's bridge module; user id $(id -u))" >&2
	exit 2
fi
ip netns del "$probe"
if [ "${1:-}" = --probe ]; then
	exit 0
fi

# --- what it creates, and removes on exit ------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmc-netns.XXXXXX")
namespaces=()
pids=()
cleanup() {
	local rc=$?
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	for ns in "${namespaces[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	if [ "$rc" != 0 ] && [ -z "${KMC_NETNS_KEEP:-}" ]; then
		say "logs of the nodes (last 20 lines each):"
		for f in "$tmp"/n*.log; do
			[ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; } >&2
		done
	fi
	if [ -n "${KMC_NETNS_KEEP:-}" ]; then
		say "kept $tmp (KMC_NETNS_KEEP)"
	else
		rm -rf "$tmp"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'say "stopped: line $LINENO exited $?"' ERR
trap 'exit 130' INT TERM

kmc=${1:-}
if [ -z "$kmc" ]; then
	say "building kmc"
	"${GO:-go}" build -o "$tmp/kmc" ./cmd/kmc
	kmc=$tmp/kmc
fi
kmc=$(realpath "$kmc")

seed=${KMC_FAULT_SEED:-$(( $(date +%s) % 1000000 ))}
RANDOM=$seed
cuts=${KMC_NETNS_CUTS:-3}
which=${KMC_NETNS_CHECKS:-both}
say "seed $seed (KMC_FAULT_SEED=$seed repeats the cuts), $cuts cuts per check"

# --- the network: ns br (a bridge), n1..n3 (a node each, 10.213.0.i/24) --------------------
br="kmc$$-br"
ip netns add "$br"
namespaces+=("$br")
ip -n "$br" link set lo up
ip -n "$br" link add br0 type bridge
ip -n "$br" link set br0 up
ns() { echo "kmc$$-n$1"; }
addr() { echo "10.213.0.$1"; }
for i in 1 2 3; do
	n=$(ns "$i")
	ip netns add "$n"
	namespaces+=("$n")
	ip -n "$n" link set lo up
	# eth0 in the node's namespace, its peer v$i on the bridge
	ip -n "$n" link add eth0 type veth peer name "v$i" netns "$br"
	ip -n "$n" addr add "$(addr "$i")/24" dev eth0
	ip -n "$n" link set eth0 up
	ip -n "$br" link set "v$i" master br0
	ip -n "$br" link set "v$i" up
done
say "namespaces $br, $(ns 1), $(ns 2), $(ns 3); nodes at $(addr 1), $(addr 2), $(addr 3)"

# Beyond loopback a node needs a token: a fresh one for this run, in the environment (not on
# a command line).
KMC_NATS_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
export KMC_NATS_TOKEN

routes="nats://$(addr 1):6222,nats://$(addr 2):6222,nats://$(addr 3):6222"
for i in 1 2 3; do
	ip netns exec "$(ns "$i")" "$kmc" node --data "$tmp/n$i" --name "n$i" --workers 1 \
		--listen "$(addr "$i"):4222" --cluster-listen "$(addr "$i"):6222" --routes "$routes" \
		>"$tmp/n$i.log" 2>&1 &
	pids+=("$!")
done
for i in 1 2 3; do
	for _ in $(seq 300); do
		grep -q 'listening on' "$tmp/n$i.log" 2>/dev/null && break
		sleep 0.1
	done
	grep -q 'listening on' "$tmp/n$i.log" || { say "node n$i did not start in 30 s"; cat "$tmp/n$i.log" >&2; exit 1; }
done
say "$(grep -h 'listening on' "$tmp"/n?.log | sed 's/ (JetStream.*//' | tr '\n' ';')"

# --- the searches ----------------------------------------------------------------------------
# strip drops what differs between runs by design: the time taken and the progress lines.
strip() { grep -v -e '^Finished in ' -e '^Progress(' "$1" | sed "s|$2|OUT|g" || true; }

failures=0
fail() { say "FAIL: $*"; failures=$((failures + 1)); }

# same NAME DIR: the run in DIR printed the reference's output and wrote its trace files.
same() {
	local name=$1 dir=$2
	if [ "$(cat "$dir/code")" != "$(cat "$ref/code")" ]; then
		fail "$name: exit $(cat "$dir/code"), the single process's $(cat "$ref/code")"
	fi
	if ! diff <(strip "$ref/stdout" "$ref/out") <(strip "$dir/stdout" "$dir/out") >"$dir/diff"; then
		fail "$name: the output differs from the single process's:"
		cat "$dir/diff" >&2
		say "its stderr:"
		tail -30 "$dir/stderr" >&2
	fi
	local f rel
	while IFS= read -r f; do
		rel=${f#"$ref/out/"}
		if ! cmp -s "$f" "$dir/out/$rel"; then
			fail "$name: $rel differs from the single process's"
		fi
	done < <(find "$ref/out" -name trace.txt -o -name trace.itf.json)
}

# cluster NAME VIA ARGS...: a search across the three nodes, the coordinator in node VIA's
# namespace connecting to node VIA; runs in the background, its folder in $run.
cluster() {
	local name=$1 via=$2
	shift 2
	run=$tmp/$name
	mkdir -p "$run"
	(
		set +e
		start=$(date +%s.%N)
		ip netns exec "$(ns "$via")" timeout 600 "$kmc" check "$@" --out "$run/out" \
			--cluster "nats://$(addr "$via"):4222" --nodes 3 --rollback-every 5s \
			>"$run/stdout" 2>"$run/stderr"
		echo $? >"$run/code.tmp"
		since "$start" >"$run/secs"
		mv "$run/code.tmp" "$run/code"
	) &
	runner=$!
}

# finish [CUT]: wait for the background search, and set search (the seconds from its start
# until its counts were printed: the search itself, before the trace files are written) and,
# when CUT (date +%s.%N) is given, noticed (the seconds from CUT until the coordinator named
# a node lost and said how it goes on).
finish() {
	local begun=$(date +%s.%N) cut=${1:-}
	search="" noticed=""
	while kill -0 "$runner" 2>/dev/null; do
		if [ -z "$search" ] && grep -q 'states generated' "$run/stdout" 2>/dev/null; then
			search=$(since "$begun")
		fi
		if [ -n "$cut" ] && [ -z "$noticed" ] && grep -q 'is lost' "$run/stderr" 2>/dev/null; then
			noticed=$(since "$cut")
		fi
		sleep 0.1
	done
	wait "$runner" || true
}

secs() { printf '%.1f' "$(cat "$1/secs")"; }
# since T: the seconds from T (date +%s.%N) to now.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# check LABEL ARGS...: the single process's run, a clean run across the nodes, then $cuts runs
# each with one node cut off at a random moment; after each, the node's link back up, the
# node must let its part of the attempt given up go (freed) and take part in a small search
# across the three nodes (rejoined); after the last, the check's own search across the three
# nodes again (the cut runs after the first also start with the node cut off before).
check() {
	local label=$1
	shift
	ref=$tmp/$label-ref
	mkdir -p "$ref"
	local start
	start=$(date +%s.%N)
	set +e
	"$kmc" check "$@" --workers 2 --out "$ref/out" >"$ref/stdout" 2>"$ref/stderr"
	echo $? >"$ref/code"
	set -e
	since "$start" >"$ref/secs"
	say "$label: one process: exit $(cat "$ref/code"), $(grep -m1 'distinct states found' "$ref/stdout" || true) ($(secs "$ref") s)"

	cluster "$label-clean" 1 "$@"
	finish
	same "$label-clean" "$run"
	# The search's distinct states, from the coordinator's progress lines (Level(d): D
	# distinct states ...; the last level's is always printed).
	local total
	total=$(grep -o '^Level([0-9]*): [0-9]* distinct' "$run/stderr" | tail -1 | sed 's/.*: //; s/ .*//' || true)
	say "$label: three nodes, no cut: exit $(cat "$run/code") ($(secs "$run") s, ${total:-no} distinct states in its Level lines)"
	if [ -z "$total" ]; then
		fail "$label: the search across the nodes printed no Level lines"
		return
	fi

	local c k via after pause cut what into d level
	for c in $(seq "$cuts"); do
		k=$((RANDOM % 3 + 1))                            # the node cut off
		via=$(((k + RANDOM % 2) % 3 + 1))                 # the coordinator's namespace: another node's
		after=$((total * (20 + RANDOM % 50) / 100))       # the cut comes in the level after the one that reaches this
		pause=$(awk -v r=$((RANDOM % 100)) 'BEGIN { printf "%.2f", r / 100 }') # and this long into it
		cut_from=$(($(wc -l <"$tmp/n$k.log") + 1))        # its log from this search on
		cluster "$label-cut$c" "$via" "$@"
		local begun=$(date +%s.%N)
		level=""
		while kill -0 "$runner" 2>/dev/null; do
			d=$(grep -o '^Level([0-9]*): [0-9]* distinct' "$run/stderr" 2>/dev/null | tail -1 || true)
			if [ -n "$d" ] && [ "$(echo "$d" | sed 's/.*: //; s/ .*//')" -ge "$after" ]; then
				level=$(echo "$d" | sed 's/^Level(//; s/).*//')
				break
			fi
			sleep 0.05
		done
		sleep "$pause"
		cut=$(date +%s.%N)
		into=$(since "$begun")
		ip -n "$br" link set "v$k" down
		finish "$cut"
		what=$(grep -m1 -o -e 'rolling back to the level checkpoint at level [0-9]* ([0-9]* distinct states)' \
			-e 'starting the search over' "$run/stderr" || echo "the search had ended before it noticed")
		if [ -n "$noticed" ]; then
			what="named lost $(printf '%.1f' "$noticed") s after the cut, $what"
		fi
		say "$label cut $c: node n$k cut off $pause s after the end of level $level ($(echo "$d" | sed 's/.*: //; s/ .*//') of $total distinct states) was reported, $into s into the search (coordinator in $(ns "$via")): $what; exit $(cat "$run/code") ($(secs "$run") s)"
		same "$label-cut$c" "$run"
		if ! grep -q "node n$k (part [0-9]*) is lost" "$run/stderr"; then
			fail "$label cut $c: node n$k was cut off during the search but the coordinator did not name it lost"
		fi
		ip -n "$br" link set "v$k" up
		rejoined "$label" "$c" "$k"
	done
	cluster "$label-after" "$k" "$@"
	finish
	say "$label: three nodes again, the coordinator in $(ns "$k"): exit $(cat "$run/code") ($(secs "$run") s)"
	same "$label-after" "$run"
}

# small: a search of a few seconds across the three nodes, and its single-process output.
small=(specs/twophase.toml --por=false --check fixed --set rms=6)

# rejoined LABEL C K: node K's link is back up after cut C. The node must let its part of the
# attempt it was cut off from go (the coordinator's end reaching it late, its lease gone or not
# renewed within its TTL, or a later epoch of its run: cluster/node.go's leave), and take part in a small search across all three nodes (the
# coordinator in its namespace) that prints the single process's output; the search is tried
# again while the node is not found yet, for up to 60 s.
rejoined() {
	local label=$1 c=$2 k=$3 up log=$tmp/n$3.log attempt freed="" took
	up=$(date +%s.%N)
	attempt=$(tail -n +"$cut_from" "$log" | grep -m1 -o 'run [0-9a-f]*\.e[0-9]*: part' | sed 's/^run //; s/: part$//' || true)
	if [ -z "$attempt" ]; then
		fail "$label cut $c: node n$k took no part in the search it was cut off from"
		return
	fi
	took="before the link's return" # when found at the first look
	while [ "$(awk -v a="$up" -v b="$(date +%s.%N)" 'BEGIN { print (b - a < 90) }')" = 1 ]; do
		freed=$(grep -m1 -o -E "run $attempt (ended|its lease is gone|no renewal of its lease|left: epoch [0-9]+)" "$log" || true)
		[ -n "$freed" ] && break
		sleep 0.2
		took="$(since "$up") s after the link's return"
	done
	if [ -z "$freed" ]; then
		fail "$label cut $c: node n$k did not let its part of attempt $attempt go within 90 s of its link's return"
		return
	fi
	local from=$(($(wc -l <"$log") + 1))
	local sref=$tmp/small-ref
	if [ ! -f "$sref/code" ]; then
		mkdir -p "$sref"
		set +e
		"$kmc" check "${small[@]}" --workers 2 --out "$sref/out" >"$sref/stdout" 2>"$sref/stderr"
		echo $? >"$sref/code"
		set -e
	fi
	while :; do
		cluster "$label-rejoin$c" "$k" "${small[@]}"
		finish
		if grep -q 'found [0-9] nodes of this kmc build' "$run/stderr" &&
			[ "$(awk -v a="$up" -v b="$(date +%s.%N)" 'BEGIN { print (b - a < 60) }')" = 1 ]; then
			sleep 1
			continue
		fi
		break
	done
	say "$label cut $c: link up; n$k: $freed ($took); a small search across the three nodes $(printf '%.1f' "$(since "$up")") s after it: exit $(cat "$run/code")"
	ref=$sref same "$label-rejoin$c" "$run"
	if ! tail -n +"$from" "$log" | grep -q ': part [0-9] of 3'; then
		fail "$label cut $c: node n$k took no part in the small search after its link's return"
	fi
}

total_start=$(date +%s)
if [ "$which" = both ] || [ "$which" = twophase ]; then
	args=(specs/twophase.toml --por=false --check fixed --set rms=9)
	check twophase "${args[@]}"
fi
if [ "$which" = both ] || [ "$which" = kafka ]; then
	args=(specs/kafka-18723-residual-logmatching.toml)
	check kafka "${args[@]}"
fi
say "done in $(($(date +%s) - total_start)) s, $failures failures (seed $seed)"
[ "$failures" = 0 ]
