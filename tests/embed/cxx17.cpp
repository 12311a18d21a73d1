// igemm.h in a C++17 translation unit: the initializer macros, the init
// functions and the numeric version; compiled with -Wall -Wextra -pedantic
// -Werror (tests/test_embed.c). Exit status 0 when the defaults and the
// version agree.
#include <igemm.h>

#include <cstdio>
#include <cstring>

static_assert(IGEMM_VERSION_NUMBER == IGEMM_VERSION_MAJOR * 10000 + IGEMM_VERSION_MINOR * 100 + IGEMM_VERSION_PATCH,
              "version number");

int main()
{
    igemm_problem p = IGEMM_PROBLEM_INIT;
    igemm_options o = IGEMM_OPTIONS_INIT;
    igemm_problem q = igemm_problem_init();
    if (std::memcmp(&p, &q, sizeof p) || p.n != 1 || p.stride_h != 1 || p.pad_h != 0 || p.groups != 1 ||
        p.layout != IGEMM_LAYOUT_NCHW || o.backend != IGEMM_BACKEND_AUTO || o.timing != 0 || o.arch)
        return 1;
    if (igemm_version_number() != IGEMM_VERSION_NUMBER || std::strcmp(igemm_version(), IGEMM_VERSION))
        return 2;
    std::printf("%s %d\n", igemm_version(), igemm_version_number());
    return 0;
}
