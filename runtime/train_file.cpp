// runtime/train_file.cpp — the model files' FileModel: its run_algorithm1 (plain and learned,
// algorithm_finite.hpp) and run_curve_seed (train_seed.hpp), in maxent_runtime, not in
// maxent_runtime_core, so that a program that trains on grid worlds only does not compile them.
#include "algorithm_impl.hpp"
#include "train_seed.hpp"

namespace maxent::programs {

template Algorithm1Run run_algorithm1(const FileModel&, const NoisyFilter<FileModel>&, const RunChoices&,
                                      const RunControl&);
template Algorithm1Run run_algorithm1(const FileModel&, const LearnedBelief&, const RunChoices&, const RunControl&);

SeedRun run_curve_seed(const FileModel& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(model, c, s, seed, stop, iterations);
}

}  // namespace maxent::programs
