//! Shared by the integration tests (each test file includes what it uses).
#![allow(dead_code, unreachable_pub)]

pub mod fixture;
pub mod frame;
pub mod invariants;
pub mod shapes;
pub mod toy_model;
