//===- PollyPluginStub.cpp - Polly's entry point for static LLVM links -----===//
//
// Debian's LLVM 22 is built with Polly linked into its tools, so libLLVMLTO's pass
// pipeline (which lld's library pulls in) calls getPollyPluginInfo(), defined only in the
// LLVM dylib. Static builds (WAVE_STATIC_LLVM) link the archives instead and get this
// definition: a plugin that registers nothing. wave-cpp never runs LTO or Polly.
//
//===----------------------------------------------------------------------===//

#include "llvm/Plugins/PassPlugin.h"

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Polly", "none (static wave-cpp link)", nullptr};
}
