#!/usr/bin/env bash
# Replays the Dockerfile without a Docker engine, so that a broken Dockerfile fails CI: each
# stage gets a folder standing for its filesystem; COPY, WORKDIR, ENV and RUN are carried out in
# it; then the final stage's CMD starts with its ENV on a free port, and /health, one MCP call, a
# search on the page for people and the HEALTHCHECK command must succeed. Each stage's RUN, CMD and
# HEALTHCHECK use the official Node binary of its FROM line's major version (node:24-... -> Node
# 24, fetched once from the npm registry by scripts/node-runtime.sh), not this machine's Node; npm
# is this machine's, run by it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
say() { printf 'container-smoke: %s\n' "$*"; }
started=$SECONDS

# The build context: the project less what .dockerignore leaves out.
context="$work/context"
mkdir -p "$context"
excludes=()
while IFS= read -r pattern; do [ -n "$pattern" ] && excludes+=("--exclude=$pattern"); done < "$root/.dockerignore"
tar -C "$root" "${excludes[@]}" -cf - . | tar -C "$context" -xf -

# Dockerfile instructions, continuation lines joined.
mapfile -t instructions < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$root/Dockerfile" | grep -vE '^\s*(#|$)')

stage=; cwd=; stage_env=(); stage_path=; cmd_json=; healthcheck=
for line in "${instructions[@]}"; do
  keyword=${line%% *}; args=${line#* }
  case "$keyword" in
    FROM)
      name=$(sed -nE 's/.* AS ([a-zA-Z0-9_-]+)$/\1/Ip' <<<"$args"); name=${name:-final}
      stage="$work/stage-$name"; mkdir -p "$stage"; cwd="$stage"; stage_env=()
      image=${args%% *}
      major=$(sed -nE 's/^node:([0-9]+)([-.].*)?$/\1/p' <<<"$image")
      [ -n "$major" ] || { say "FROM $image: only node:<major>[-...] images can be replayed"; exit 1; }
      node_bin=$(bash "$root/scripts/node-runtime.sh" "$major") || { say "no Node $major for FROM $image"; exit 1; }
      stage_path="$node_bin:$PATH"
      say "stage $name ($image, node $(PATH="$stage_path" node --version))";;
    WORKDIR) cwd="$stage$args"; mkdir -p "$cwd";;
    ENV) read -ra pairs <<<"$args"; stage_env+=("${pairs[@]}");;
    COPY)
      read -ra parts <<<"$args"; from="$context"; files=()
      for p in "${parts[@]}"; do
        case "$p" in --from=*) from="$work/stage-${p#--from=}";; --*) ;; *) files+=("$p");; esac
      done
      dest=${files[-1]}; unset 'files[-1]'
      into_dir=false; case "$dest" in */|.) into_dir=true;; esac
      [ "${#files[@]}" -gt 1 ] && into_dir=true
      case "$dest" in /*) dest="$stage$dest";; *) dest="$cwd/$dest";; esac
      for f in "${files[@]}"; do
        case "$f" in /*) src="$from$f";; *) src="$from/$f";; esac
        [ -e "$src" ] || { say "COPY: $f not found"; exit 1; }
        # As Docker does: a folder's contents go into the destination; a file goes into it or becomes it.
        if [ -d "$src" ]; then mkdir -p "$dest"; cp -a "$src/." "$dest/"
        elif $into_dir; then mkdir -p "$dest"; cp -a "$src" "$dest/"
        else mkdir -p "$(dirname "$dest")"; cp -a "$src" "$dest"; fi
      done;;
    RUN) say "RUN $args"; (cd "$cwd" && env PATH="$stage_path" "${stage_env[@]}" bash -euo pipefail -c "$args") > "$work/run.log" 2>&1 || { cat "$work/run.log"; say "FAILED: RUN $args"; exit 1; };;
    CMD) cmd_json=$args;;
    HEALTHCHECK) healthcheck=$(sed -nE 's/.*CMD (\[.*\])$/\1/p' <<<"$args");;
    USER|EXPOSE|LABEL|ARG) ;;
    *) say "unsupported instruction $keyword"; exit 1;;
  esac
done

[ -n "$cmd_json" ] || { say "no CMD"; exit 1; }
mapfile -t cmd < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$cmd_json")
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
say "CMD ${cmd[*]} on port $port"
(cd "$cwd" && exec env -i PATH="$stage_path" "${stage_env[@]}" PORT="$port" "${cmd[@]}") > "$work/server.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 50); do curl -sf "$base/health" > /dev/null && break; sleep 0.2; done
curl -sf "$base/health" | grep -q '"status":"ok"' || { cat "$work/server.log"; say "FAILED: /health"; exit 1; }
say "/health ok"

answer=$(curl -sf "$base/mcp" -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2026-07-28' \
  -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_sources' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_sources","arguments":{"query":"learn rust programming"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}')
grep -q 'Slug: rust-learning' <<<"$answer" || { echo "$answer"; cat "$work/server.log"; say "FAILED: MCP call"; exit 1; }
say "MCP tools/call get_sources ok"
# The page for people renders from views/, which the image must carry.
page=$(curl -sf "$base/?q=learn+rust+programming") || { cat "$work/server.log"; say "FAILED: GET /"; exit 1; }
grep -q '<strong>Rust Learning</strong>' <<<"$page" || { cat "$work/server.log"; say "FAILED: GET / did not answer the search"; exit 1; }
say "GET / with a search ok"

if [ -n "$healthcheck" ]; then
  mapfile -t check < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$healthcheck")
  (cd "$cwd" && env PATH="$stage_path" "${stage_env[@]}" PORT="$port" "${check[@]}") || { say "FAILED: HEALTHCHECK"; exit 1; }
  say "HEALTHCHECK ok"
fi

kill -TERM "$pid"; wait "$pid" && status=0 || status=$?
pid=
[ "$status" -eq 0 ] || { cat "$work/server.log"; say "FAILED: exit status $status after SIGTERM"; exit 1; }
say "SIGTERM: exit 0"
say "passed in $((SECONDS - started)) s"
