//! Adds `family:qualifier = value` (`column=f:q,value=v`) to every put.

use basalt_coprocessor_sdk::{Args, Coprocessor, Put, export};

struct AddColumn {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    value: Vec<u8>,
}

impl Coprocessor for AddColumn {
    fn init(args: &Args) -> Result<Self, String> {
        let column = args.require("column")?;
        let (family, qualifier) = column
            .split_once(':')
            .ok_or_else(|| format!("column={column} is not family:qualifier"))?;
        Ok(AddColumn {
            family: family.as_bytes().to_vec(),
            qualifier: qualifier.as_bytes().to_vec(),
            value: args.get("value").unwrap_or("").as_bytes().to_vec(),
        })
    }

    fn pre_put(&self, put: &mut Put) -> Result<(), String> {
        *put = std::mem::replace(put, Put::new(Vec::new())).add(
            self.family.clone(),
            self.qualifier.clone(),
            self.value.clone(),
        );
        Ok(())
    }
}

export!(AddColumn, [pre_put]);
