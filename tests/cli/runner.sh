# runner.sh - tests/run.sh counts a test script that does not run to its end
# as a failure, whatever it printed before: one that exits non-zero, one
# with a syntax error, one killed after PART_SECONDS; and the unit binary
# that dies before its summary.  Run on a tree of stand-in parts.
. tests/cli/lib.sh
RUNNER=$(pwd)/tests/run.sh
mkdir -p "$WORK/t/tests/cli" "$WORK/t/build" || exit 1
cp tests/cli/lib.sh "$WORK/t/tests/cli/lib.sh"
# The unit binary's stand-in: its summary and the matching exit status,
# unless UNIT_DIES is set.
cat >"$WORK/t/build/gemmbench-tests" <<'UNIT'
#!/bin/sh
[ -n "$UNIT_DIES" ] && { echo "PASS something"; kill -SEGV $$; }
echo "unit: 3 passed, 0 failed, 1 skipped"
UNIT
chmod +x "$WORK/t/build/gemmbench-tests"
: >"$WORK/t/build/gemmbench"

# parts PART...: the test scripts of the stand-in tree, from tests/cli/.
parts() {
    rm -f "$WORK/t/tests/cli/"[a-z]*_*.sh
    for p in "$@"; do
        case $p in
        all_ok) printf '. tests/cli/lib.sh\necho "ok one"\necho "ok two"\n' ;;
        ends_false) printf '. tests/cli/lib.sh\necho "ok one"\n[ 1 = 2 ] && echo "ok never"\n' ;;
        cd_fails) printf '. tests/cli/lib.sh\necho "ok one"\ncd /nonexistent/dir 2>/dev/null || exit 1\necho "ok two"\n' ;;
        syntax_error) printf '. tests/cli/lib.sh\necho "ok one"\nif then\necho "ok two"\n' ;;
        hangs_forever) printf '. tests/cli/lib.sh\necho "ok one"\nsleep 60\necho "ok two"\n' ;;
        with_skip) printf '. tests/cli/lib.sh\nskip cannot_here "needs X"\n' ;;
        esac >"$WORK/t/tests/cli/$p.sh"
    done
}

# summary NAME WANT [ENV...]: tests/run.sh on the stand-in tree prints the
# summary WANT and exits 0 exactly when WANT has 0 failed.
summary() {
    name=$1 want=$2
    shift 2
    (cd "$WORK/t" && env "$@" sh "$RUNNER" build fast) >"$WORK/$name.out" 2>&1
    rc=$?
    got=$(tail -n 1 "$WORK/$name.out")
    case $want in *" 0 failed,"*) want_rc=0 ;; *) want_rc=1 ;; esac
    if [ "$got" != "$want" ]; then
        echo "FAIL runner_$name: summary '$got', expected '$want'"
    elif [ "$rc" -ne "$want_rc" ]; then
        echo "FAIL runner_$name: exit $rc with '$got'"
    else
        echo "ok runner_$name"
    fi
}

parts all_ok with_skip
summary counts_ok_and_skip "5 passed, 0 failed, 2 skipped"
parts all_ok ends_false
summary nonzero_exit_is_a_failure "6 passed, 1 failed, 1 skipped"
expect_grep runner_names_the_script "^FAIL script tests/cli/ends_false.sh: exited 1" "$WORK/nonzero_exit_is_a_failure.out"
parts cd_fails
summary dead_script_is_a_failure "4 passed, 1 failed, 1 skipped"
parts syntax_error
summary syntax_error_is_a_failure "4 passed, 1 failed, 1 skipped"
parts hangs_forever
summary hang_is_killed_and_failed "4 passed, 1 failed, 1 skipped" PART_SECONDS=2
expect_grep runner_says_killed "^FAIL script tests/cli/hangs_forever.sh: still running after 2 s" "$WORK/hang_is_killed_and_failed.out"
parts all_ok
summary unit_dying_is_a_failure "2 passed, 1 failed, 0 skipped" UNIT_DIES=1
