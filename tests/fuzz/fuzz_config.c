/* fuzz_config.c - bench.conf: any bytes as a configuration file. */
#include "fuzz_util.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gb_options o; /* large: not on the stack */
    char err[GB_ERR_LEN];

    gb_options_defaults(&o);
    if (gb_config_load(&o, fuzz_file(data, size), err, sizeof err) != 0 && err[0] == '\0')
        abort(); /* an error always says what it is */
    return 0;
}
