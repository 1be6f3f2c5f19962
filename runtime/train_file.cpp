// runtime/train_file.cpp — run_curve_seed (runner.hpp) for the model files' FileModel, in
// maxent_runtime: the model is copied into the runtime's finite world over indices (index_pomdp,
// algorithm_finite.hpp: the same sparse matrices, μ, horizon and tolerance, so the same bits) and
// trained by IndexPomdp's run_algorithm1 (algorithm_index.cpp), so that the trainers of a finite
// world are compiled once for the programs and the Python module alike.
#include "train_seed.hpp"

namespace maxent::programs {

SeedRun run_curve_seed(const FileModel& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(index_pomdp(model), c, s, seed, stop, iterations);
}

}  // namespace maxent::programs
