//! coordinator library
