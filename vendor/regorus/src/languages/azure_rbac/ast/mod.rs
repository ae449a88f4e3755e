// Copyright (c) Microsoft Corporation.
// Licensed under the MIT License.

pub mod context;
pub mod expr;
pub mod literals;
pub mod operators;
pub mod references;
pub mod span;

pub use context::*;
pub use expr::*;
pub use literals::*;
pub use operators::*;
pub use references::*;
pub use span::*;
