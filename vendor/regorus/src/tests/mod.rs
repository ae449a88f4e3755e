// Copyright (c) Microsoft Corporation.
// Licensed under the MIT License.

mod engine;
pub mod interpreter;
mod scheduler;
