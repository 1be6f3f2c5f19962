// runtime/train_file.cpp — run_curve_seed for the model files' FileModel: its trainers
// (train_seed.hpp), in maxent_runtime, not in maxent_runtime_core, so that a program that
// trains on grid worlds only does not compile them.
#include "train_seed.hpp"

namespace maxent::programs {

SeedRun run_curve_seed(const FileModel& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(model, c, s, seed, stop, iterations);
}

}  // namespace maxent::programs
