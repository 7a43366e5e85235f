# Sourced by bin/parsa: which just-in-time compilers the local JVM runs (PARSA_JIT, PARSA_C1_MAX_MB), from the
# size of the step's input.

# Bytes of the local paths after --input (else 1/3 of those after --blocks), comma-separated; empty if any is not a
# local path.
local_input_bytes() {
  local want="" arg paths="" total=0 p b list
  for want in --input --blocks; do
    local next=0
    for arg in "$@"; do
      if [[ $next == 1 ]]; then paths="$arg"; break; fi
      [[ "$arg" == "$want" ]] && next=1
      [[ "$arg" == "$want="* ]] && { paths="${arg#*=}"; break; }
    done
    [[ -n "$paths" ]] && break
  done
  local share=1
  [[ "$want" == --blocks ]] && share=3
  [[ -z "$paths" ]] && return 0
  IFS=',' read -r -a list <<< "$paths"
  for p in "${list[@]}"; do
    p="${p#file://}"
    p="${p#file:}"
    [[ "$p" == *://* ]] && return 0
    # shellcheck disable=SC2086 # unquoted: a glob names several files
    b=$(du -scbL -- $p 2>/dev/null) || return 0 # a path that is not there (or a glob that matches nothing)
    b=$(tail -n 1 <<< "$b" | cut -f1)
    [[ -z "$b" ]] && return 0
    total=$((total + b))
  done
  echo $((total / share))
}

# The JIT option of the local JVM for a step's arguments (PARSA_JIT, PARSA_C1_MAX_MB; see bin/parsa): prints
# -XX:TieredStopAtLevel=1 or nothing; fails with a message on a bad PARSA_JIT.
parsa_jit_opts() {
  local bytes
  case "${PARSA_JIT:-auto}" in
    c1) echo "-XX:TieredStopAtLevel=1" ;;
    tiered) ;;
    auto)
      bytes="$(local_input_bytes "$@")"
      if [[ -n "$bytes" && "$bytes" -le $(( ${PARSA_C1_MAX_MB:-6} * 1024 * 1024 )) ]]; then
        echo "-XX:TieredStopAtLevel=1"
      fi ;;
    *) echo "parsa: PARSA_JIT must be auto, c1 or tiered, got '${PARSA_JIT}'" >&2; return 2 ;;
  esac
}
