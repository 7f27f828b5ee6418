# fleet.sh - `report A B ...` and scripts/fleet-report.sh at fleet size
# (issue 28, class 7): no fixed number of files, one file under --by-dir,
# names that need quoting work or are refused by name.
. tests/cli/lib.sh
G=$GEMMBENCH
F=scripts/fleet-report.sh

"$G" --quiet --reps 3 --warmup 0 --rounds 1 --shape 13x21x9 --variant baseline,parallel \
    --threads 1 -o "$WORK/one.json" >/dev/null 2>&1 || echo "FAIL fleet_seed_run"

# 65 NAME=FILE (a Slurm array of 65 nodes): the 65th is a name, not a path.
set --
i=1
while [ $i -le 65 ]; do
    set -- "$@" "node$i=$WORK/one.json"
    i=$((i + 1))
done
expect_exit report_65_names 0 "$G" report "$@" --format csv
expect_grep report_65_names_last 'node65 median_us' "$WORK/out"

# The same through the script, one directory per node.
i=1
while [ $i -le 70 ]; do
    mkdir -p "$WORK/slurm/node-$i"
    cp "$WORK/one.json" "$WORK/slurm/node-$i/result.json"
    i=$((i + 1))
done
expect_exit fleet_70_nodes 0 env GEMMBENCH="$G" sh "$F" --by-dir "$WORK/slurm" --format csv
expect_grep fleet_70_nodes_last 'node-9 median_us' "$WORK/out"

# --by-dir over one machine: its one-file report, no NAME= error.
mkdir -p "$WORK/single/runner-one"
cp "$WORK/one.json" "$WORK/single/runner-one/result.json"
expect_exit fleet_by_dir_one_file 0 env GEMMBENCH="$G" sh "$F" --by-dir "$WORK/single"
expect_grep fleet_by_dir_one_file_report "^gemmbench report of .*runner-one/result.json" \
    "$WORK/out"

# Names with blanks, quotes and '=' are one argument each.
mkdir -p "$WORK/odd/runner one" "$WORK/odd/it's" "$WORK/odd/a=b"
cp "$WORK/one.json" "$WORK/odd/runner one/my result.json"
cp "$WORK/one.json" "$WORK/odd/it's/r.json"
cp "$WORK/one.json" "$WORK/odd/a=b/r.json"
expect_exit fleet_blank_names 0 env GEMMBENCH="$G" sh "$F" "$WORK/odd" --format csv
expect_grep fleet_blank_names_files 'runner one/my result.json' "$WORK/out"
# --by-dir: the names are the directories; one with '=' is refused by name.
expect_exit fleet_by_dir_equals 2 env GEMMBENCH="$G" sh "$F" --by-dir "$WORK/odd"
expect_grep fleet_by_dir_equals_says "the name 'a=b' has a '='" "$WORK/err"
rm -r "$WORK/odd/a=b"
expect_exit fleet_by_dir_blanks 0 env GEMMBENCH="$G" sh "$F" --by-dir "$WORK/odd" --format csv
expect_grep fleet_by_dir_blanks_columns "it's median_us,.*runner one /it's" "$WORK/out"

# A newline in a name: refused by name, escaped.
mkdir -p "$WORK/nl/two
lines"
cp "$WORK/one.json" "$WORK/nl/two
lines/r.json"
cp "$WORK/one.json" "$WORK/nl/r.json"
expect_exit fleet_newline_refused 2 env GEMMBENCH="$G" sh "$F" "$WORK/nl"
expect_grep fleet_newline_says 'has a newline: rename it (.*two\\x0alines' "$WORK/err"

# A NAME longer than a column title holds: refused by name, not read as a path.
long=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
expect_exit report_long_name 2 "$G" report "$long=$WORK/one.json" "b=$WORK/one.json"
expect_grep report_long_name_says 'the NAME of NAME=FILE .nnnn.* is longer than 63' "$WORK/err"
