// tests/package/tiger_listen.cpp — the program both package consumers build (find_package
// after install, add_subdirectory of the source tree). It builds the two-state tiger
// "listen" model as a maxent::FinitePomdp, does one Bayes step by hand from the model's
// likelihood column (paper, Section 2.1: b'(s) ∝ b(s) Obs(o | s) when listening leaves the
// state unchanged) and checks the posterior against the hand-derived value 0.85.
// Exit status 0 on success, 1 on failure.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <maxent/model/concepts.hpp>
#include <maxent/model/finite_pomdp.hpp>

int main() {
    using Model = maxent::FinitePomdp<std::string, std::string, std::string>;
    static_assert(maxent::require_tabular_pomdp<Model>());

    const Eigen::MatrixXd stay = Eigen::MatrixXd::Identity(2, 2);  // listening does not move the tiger
    Eigen::MatrixXd hear(2, 2);                                      // Obs(o | s): rows s, columns o
    hear << 0.85, 0.15,
            0.15, 0.85;
    const Model tiger({"tiger-left", "tiger-right"}, {"listen"}, {"hear-left", "hear-right"},
                      std::vector<Eigen::MatrixXd>{stay}, std::vector<Eigen::MatrixXd>{hear},
                      Eigen::VectorXd::Constant(2, 0.5), 1);

    // Uniform prior, action "listen", observation "hear-left".
    const maxent::SparseDistribution like =
        tiger.likelihood(tiger.action_index("listen"), tiger.observation_index("hear-left"));
    Eigen::VectorXd posterior = Eigen::VectorXd::Zero(2);
    for (std::size_t k = 0; k < like.size(); ++k)
        posterior[like.index[k]] = tiger.initial_distribution()[like.index[k]] * like.probability[k];
    posterior /= posterior.sum();
    const double left = posterior[static_cast<Eigen::Index>(tiger.state_index("tiger-left"))];

    // Leak probe: the next line converts double to int implicitly. Under the project's own
    // flags (-Wconversion -Werror) it would not compile; a consumer must never get them.
    const int percent = left * 100.0 + 0.5;

    std::printf("maxent consumer: %zu states, %zu actions, %zu observations; "
                "P(tiger-left | hear-left) = %.17g (%d%%)\n",
                tiger.num_states(), tiger.num_actions(), tiger.num_observations(), left, percent);
    const bool ok = tiger.num_states() == 2 && tiger.num_actions() == 1 && tiger.num_observations() == 2 &&
                    std::abs(left - 0.85) < 1e-12 && percent == 85;
    if (!ok) std::printf("maxent consumer: FAILED (expected P(tiger-left | hear-left) = 0.85)\n");
    return ok ? 0 : 1;
}
