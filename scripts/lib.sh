# lib.sh - what the scripts share; sourced, never run:
#   . "$(dirname "$0")/lib.sh"
# Both functions print on stdout, for $(...).

# shown TEXT: TEXT as gemmbench's own messages show a user's text
# (gb_printable in src/base/parse.c): bytes outside printable ASCII, and the
# backslash, as \xNN, and at most 80 characters, then "...", so that an
# error naming it is one line a terminal shows as it is.
shown() {
    printf '%s' "$1" | od -An -v -tu1 | awk -v max=80 '
        { for (i = 1; i <= NF; i++) {
              if (n++ == max) { printf "..."; exit }
              if ($i < 32 || $i >= 127 || $i == 92) printf "\\x%02x", $i
              else printf "%c", $i + 0 } }'
}

# decimal TEXT MAX: TEXT read as a whole number in decimal, leading zeros
# and all (010 is ten: the shell's $((...)) would read it as octal eight,
# and 09 as an error of its own), printed without them; status 1 and
# nothing printed when TEXT is not digits only or is above MAX (at most
# 999999999, so that no comparison here is beyond the shell's arithmetic).
decimal() {
    case $1 in '' | *[!0-9]*) return 1 ;; esac
    _decimal=$1
    while :; do
        case $_decimal in 0?*) _decimal=${_decimal#0} ;; *) break ;; esac
    done
    [ ${#_decimal} -le 9 ] && [ "$_decimal" -le "$2" ] || return 1
    echo "$_decimal"
}

# whole TEXT MIN MAX: status 0 when TEXT is a whole number in decimal from
# MIN to MAX written plainly: digits only, no sign, no leading zero (08 is
# refused rather than read: the shell's $((...)) reads it as octal and
# fails with "Illegal number" half-way through a script), at most 9 digits.
whole() {
    case $1 in '' | *[!0-9]* | 0?*) return 1 ;; esac
    [ ${#1} -le 9 ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# step NAME LOG CMD...: runs CMD with its output in LOG, then shows LOG; a
# CMD that fails ends the script with one line naming NAME and LOG's last
# line (exit 1).  No pipe: a `| tee` would hide CMD's exit status.
step() {
    _step_name=$1 _step_log=$2
    shift 2
    if "$@" >"$_step_log" 2>&1; then
        cat "$_step_log"
    else
        _step_rc=$?
        echo "gemmbench: ${script:-script}: $_step_name failed (exit $_step_rc): $(tail -n 1 "$_step_log" | cut -c1-300)" >&2
        exit 1
    fi
}
