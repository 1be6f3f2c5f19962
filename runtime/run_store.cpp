// runtime/run_store.cpp — the check of a kept learned model's text
// (check_learned_model_text, declared in run_store.hpp), compiled once so that the headers do
// not include the POMDP file parser. It includes the parser alone, not run_store.hpp, which
// would double its compile time (the run types' library headers); a signature that drifted
// from the declaration leaves the programs' link with an undefined reference.
#include <string_view>

#include "maxent/model/pomdp_file.hpp"

namespace maxent::programs {

void check_learned_model_text(std::string_view text, std::string_view name) {
    (void)parse_pomdp(text, name);
}

}  // namespace maxent::programs
