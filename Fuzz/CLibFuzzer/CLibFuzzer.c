// Only the header matters: LLVMFuzzerRunDriver is defined by libFuzzer's runtime.
#include "CLibFuzzer.h"
