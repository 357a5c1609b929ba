//! Shared by the integration tests: the fake upstream and a harness that runs a real proxy.
#![allow(dead_code, unreachable_pub)]

pub mod fake_upstream;
pub mod harness;
