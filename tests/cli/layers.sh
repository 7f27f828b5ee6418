# layers.sh - the dependencies of src/ and schedules/ point one way
# (scripts/layers.py on the objects of this build): no include and no call
# runs up a layer or across one; and the check can fail: an object of base/
# that calls the variant table (schedules/) is named as an arrow up.
. tests/cli/lib.sh
BUILD=$(dirname "$GEMMBENCH")

if ! command -v nm >/dev/null 2>&1; then
    skip layers_point_one_way "no nm (binutils)"
    skip layers_check_names_an_arrow_up "no nm (binutils)"
    exit 0
fi
expect_exit layers_point_one_way 0 python3 scripts/layers.py "$BUILD"

# The same objects, plus one in base/ calling up into schedules/.
mkdir -p "$WORK/b"
cp -R "$BUILD/src" "$BUILD/schedules" "$WORK/b/"
printf '%s\n' 'const void *gb_variant_find(const char *name);' \
    'const void *up(void) { return gb_variant_find("packed"); }' >"$WORK/up.c"
cc -c -o "$WORK/b/src/base/up.o" "$WORK/up.c"
expect_exit layers_check_names_an_arrow_up 1 python3 scripts/layers.py "$WORK/b"
expect_grep layers_check_names_the_call "src/base/up.c (base -> schedules): gb_variant_find" "$WORK/out"
