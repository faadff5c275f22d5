//! Integration tests: `willy` as a user runs it. One binary (ripgrep's
//! layout): `run` on files, bad input, raw devices.

mod util;

mod anomalies;
mod bad_input;
mod bad_input_table;
mod bus_model;
mod closed_output;
mod device;
mod fio;
mod interfere;
mod mpi;
mod plot;
mod predict;
mod probe;
mod run_files;
mod scale;
mod several;
mod shell;
mod sim;
mod source;
mod validate;
mod verify;
