// runtime/run_store.cpp — the check of a kept learned model's text (run_store.hpp
// check_learned_model_text), compiled once so that the headers do not include the POMDP
// file parser.
#include "run_store.hpp"

#include <string_view>

#include "maxent/model/pomdp_file.hpp"

namespace maxent::programs {

void check_learned_model_text(std::string_view text, std::string_view name) {
    (void)parse_pomdp(text, name);
}

}  // namespace maxent::programs
