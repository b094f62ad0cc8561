//===- Registration.h - Register all Plexus dialects ------------*- C++ -*-===//
#ifndef PLEXUS_DIALECTS_REGISTRATION_H
#define PLEXUS_DIALECTS_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace plexus {
/// Inserts the plx, plan and rt dialects into `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
} // namespace plexus

#endif // PLEXUS_DIALECTS_REGISTRATION_H
