//! What every server knows of `hbase:meta` without reading anything: its schema and its one
//! region (HBase's `FSTableDescriptors.createMetaTableDescriptorBuilder` and
//! `RegionInfoBuilder.FIRST_META_REGIONINFO`). The catalog's contents are the master's
//! (`basalt-master`'s `meta`).

use basalt_common::table_name::SYSTEM_NAMESPACE;
use basalt_common::{
    BloomType, ColumnFamilyDescriptor, RegionInfo, Result, TableDescriptor, TableName,
};

const INFO: &[u8] = b"info";
const TABLE: &[u8] = b"table";
const NS: &[u8] = b"ns";

/// The meta table's schema (HBase's `createMetaTableDescriptorBuilder`, with HBase 3's `ns`
/// family holding namespaces).
pub fn meta_descriptor() -> Result<TableDescriptor> {
    let info = ColumnFamilyDescriptor::new(INFO)
        .with_max_versions(3)
        .with_in_memory(true)
        .with_block_size(8 * 1024)
        .with_bloom_filter(BloomType::RowCol);
    let mut d = TableDescriptor::new(TableName::new(SYSTEM_NAMESPACE, "meta")?)
        .with_family(info)
        .with_family(
            ColumnFamilyDescriptor::new(TABLE)
                .with_max_versions(3)
                .with_in_memory(true)
                .with_block_size(8 * 1024),
        )
        .with_family(
            ColumnFamilyDescriptor::new(NS)
                .with_max_versions(3)
                .with_in_memory(true)
                .with_block_size(8 * 1024),
        );
    d.is_meta = true;
    Ok(d)
}

/// Meta's own region: the whole key space, id 1 (its name is `hbase:meta,,1`).
pub fn meta_region_info() -> Result<RegionInfo> {
    Ok(RegionInfo::whole_table(
        TableName::new(SYSTEM_NAMESPACE, "meta")?,
        1,
    ))
}
