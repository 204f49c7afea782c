//! Tables, families, namespaces and regions in HBase's protobuf forms (`TableSchema`,
//! `ColumnFamilySchema`, `NamespaceDescriptor`, `RegionInfo`), both ways.

use basalt_common::{
    Bytes, ColumnFamilyDescriptor, NamespaceDescriptor, RegionInfo, TableDescriptor, TableName,
};

use crate::from_error;
use crate::pb::{self, ExceptionResponse};

pub fn table_name(t: &pb::TableName) -> Result<TableName, ExceptionResponse> {
    parse_table_name(t).map_err(|e| from_error(&e))
}

/// A table's name from HBase's message (the default namespace when none is named).
pub fn parse_table_name(t: &pb::TableName) -> basalt_common::Result<TableName> {
    let ns = String::from_utf8_lossy(&t.namespace);
    let q = String::from_utf8_lossy(&t.qualifier);
    let full = if ns.is_empty() || ns == "default" {
        q.into_owned()
    } else {
        format!("{ns}:{q}")
    };
    TableName::parse(&full)
}

pub fn pb_table_name(t: &TableName) -> pb::TableName {
    pb::TableName {
        namespace: t.namespace().as_bytes().to_vec(),
        qualifier: t.qualifier().as_bytes().to_vec(),
    }
}

/// A family from HBase's schema message: its attributes by HBase's names.
pub fn family(f: &pb::ColumnFamilySchema) -> Result<ColumnFamilyDescriptor, ExceptionResponse> {
    parse_family(f).map_err(|e| from_error(&e))
}

/// [`family`], failing with Basalt's error.
pub fn parse_family(f: &pb::ColumnFamilySchema) -> basalt_common::Result<ColumnFamilyDescriptor> {
    let mut family = ColumnFamilyDescriptor::new(Bytes::copy_from_slice(&f.name));
    for a in &f.attributes {
        let key = String::from_utf8_lossy(&a.first);
        let value = String::from_utf8_lossy(&a.second);
        family.set_attribute(&key, &value)?;
    }
    for c in &f.configuration {
        family.configuration.insert(c.name.clone(), c.value.clone());
    }
    Ok(family)
}

/// A table descriptor from HBase's schema message: table attributes and families by HBase's
/// names (unknown table attributes are kept as metadata, as HBase keeps them).
pub fn descriptor(
    name: TableName,
    s: &pb::TableSchema,
) -> Result<TableDescriptor, ExceptionResponse> {
    parse_descriptor(name, s).map_err(|e| from_error(&e))
}

/// [`descriptor`], failing with Basalt's error.
pub fn parse_descriptor(
    name: TableName,
    s: &pb::TableSchema,
) -> basalt_common::Result<TableDescriptor> {
    let mut desc = TableDescriptor::new(name);
    for a in &s.attributes {
        let key = String::from_utf8_lossy(&a.first);
        let value = String::from_utf8_lossy(&a.second);
        desc.set_attribute(&key, &value)?;
    }
    for c in &s.configuration {
        desc.configuration.insert(c.name.clone(), c.value.clone());
    }
    for f in &s.column_families {
        desc = desc.with_family(parse_family(f)?);
    }
    Ok(desc)
}

/// METADATA travels as plain attributes and CONFIGURATION as name/value pairs, as in HBase.
fn pairs(
    known: impl Iterator<Item = (String, String)>,
    metadata: &std::collections::BTreeMap<String, String>,
) -> Vec<pb::BytesBytesPair> {
    known
        .chain(metadata.iter().map(|(k, v)| (k.clone(), v.clone())))
        .map(|(k, v)| pb::BytesBytesPair {
            first: k.into_bytes(),
            second: v.into_bytes(),
        })
        .collect()
}

fn name_strings(map: &std::collections::BTreeMap<String, String>) -> Vec<pb::NameStringPair> {
    map.iter()
        .map(|(k, v)| pb::NameStringPair {
            name: k.clone(),
            value: v.clone(),
        })
        .collect()
}

pub fn schema(d: &TableDescriptor) -> pb::TableSchema {
    pb::TableSchema {
        table_name: Some(pb_table_name(&d.name)),
        attributes: pairs(d.non_default_attributes().into_iter(), &d.metadata),
        column_families: d
            .families()
            .iter()
            .map(|f| pb::ColumnFamilySchema {
                name: f.name.to_vec(),
                attributes: pairs(
                    f.wire_attributes()
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v)),
                    &f.metadata,
                ),
                configuration: name_strings(&f.configuration),
            })
            .collect(),
        configuration: name_strings(&d.configuration),
    }
}

/// A namespace from its protobuf form.
pub fn namespace_descriptor(d: &pb::NamespaceDescriptor) -> NamespaceDescriptor {
    let mut ns = NamespaceDescriptor::new(&String::from_utf8_lossy(&d.name));
    for c in &d.configuration {
        ns = ns.with_configuration(&c.name, &c.value);
    }
    ns
}

pub fn namespace(n: &NamespaceDescriptor) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: n.name.as_bytes().to_vec(),
        configuration: name_string_pairs(&n.configuration),
    }
}

/// Names and values as HBase's `NameStringPair`s.
pub fn name_string_pairs<'a>(
    pairs: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Vec<pb::NameStringPair> {
    pairs
        .into_iter()
        .map(|(k, v)| pb::NameStringPair {
            name: k.clone(),
            value: v.clone(),
        })
        .collect()
}

/// HBase's protobuf RegionInfo for one of Basalt's regions.
pub fn region_info_pb(info: &RegionInfo) -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: u64::try_from(info.region_id).unwrap_or(0),
        table_name: pb_table_name(&info.table),
        start_key: Some(info.start_key.to_vec()),
        end_key: Some(info.end_key.to_vec()),
        offline: Some(info.offline),
        split: Some(info.split),
        replica_id: Some(0),
        region_encoded_name: None,
    }
}

/// One of Basalt's regions from HBase's protobuf RegionInfo.
pub fn region_info(info: &pb::RegionInfo) -> Result<RegionInfo, ExceptionResponse> {
    let id = i64::try_from(info.region_id).map_err(|_| {
        from_error(&basalt_common::Error::InvalidArgument(format!(
            "region id {} is out of range",
            info.region_id
        )))
    })?;
    let mut out = RegionInfo::new(
        table_name(&info.table_name)?,
        Bytes::from(info.start_key.clone().unwrap_or_default()),
        Bytes::from(info.end_key.clone().unwrap_or_default()),
        id,
    );
    out.offline = info.offline();
    out.split = info.split();
    Ok(out)
}
