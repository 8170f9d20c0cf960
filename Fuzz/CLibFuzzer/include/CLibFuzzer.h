#ifndef BATON_CLIBFUZZER_H
#define BATON_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for programs with a main of their own (LLVM 11 and later), in
// libclang_rt.fuzzer, linked by -sanitize=fuzzer. It parses libFuzzer's flags from argv and
// runs `callback` on every input; it calls LLVMFuzzerInitialize first when the program has one.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
