pub mod awslc;
#[allow(unsafe_code)]
pub mod awslc_sys;
pub mod sm;
