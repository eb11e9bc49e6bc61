pub mod awslc;
