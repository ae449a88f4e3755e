// Copyright (c) Microsoft Corporation.
// Licensed under the MIT License.

mod azure;
mod suite;
mod validate;
