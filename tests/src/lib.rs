//! Test support: a real nats-server per test.
