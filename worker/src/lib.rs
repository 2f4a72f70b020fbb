//! worker library
