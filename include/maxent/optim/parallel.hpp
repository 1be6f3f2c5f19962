// maxent/optim/parallel.hpp — kept so that existing includes keep working: run_parallel and
// hardware_threads now live in core/parallel.hpp (they need only core/error.hpp, and the
// belief layer uses them too; see docs/architecture.md, "Layers").
#pragma once

#include "maxent/core/parallel.hpp"
