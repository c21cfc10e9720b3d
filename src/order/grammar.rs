//! placeholder, replaced by the grammar
