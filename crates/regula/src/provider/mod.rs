pub mod awslc;
pub mod sm;
