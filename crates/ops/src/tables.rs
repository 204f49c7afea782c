//! Tables and their families: DDL (each a procedure with a nonce, needing ADMIN or CREATE on
//! the table, CREATE on the namespace to create one) and the reads of their names, schemas
//! and states (open to all).

use basalt_common::acl::{Action, Scope};
use basalt_common::{Bytes, ColumnFamilyDescriptor, Error, Result, TableDescriptor, TableName};
use basalt_proto::pb;
use basalt_proto::schema::{
    parse_descriptor as descriptor, parse_table_name as table_name, pb_table_name, schema,
};

use crate::declare::{calls, operations};
use crate::{Changed, Need, need};

/// CREATE on the namespace of the table a CreateTable names.
fn create_need(r: &pb::CreateTableRequest) -> Result<Option<Need>> {
    let t = created_table(r)?;
    Ok(Some(Need {
        actions: vec![Action::Create],
        scope: Scope::Namespace(t.namespace().to_owned()),
    }))
}

/// The table a CreateTable names.
pub fn created_table(r: &pb::CreateTableRequest) -> Result<TableName> {
    let name = r
        .table_schema
        .table_name
        .as_ref()
        .ok_or_else(|| Error::Refused("CreateTable without a table name".into()))?;
    table_name(name)
}

operations! {
    /// Tables and their families.
    area Tables, handler TableHandler;
    /// Creates a table, pre-split at the keys given.
    CreateTable(pb::CreateTableRequest) -> pb::ProcedureResponse
        = create_table, need create_need, nonce;
    /// Drops a disabled table and its data.
    DeleteTable(pb::TableNameRequest) -> pb::ProcedureResponse = delete_table,
        need |r: &pb::TableNameRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Brings a disabled table back.
    EnableTable(pb::TableNameRequest) -> pb::ProcedureResponse = enable_table,
        need |r: &pb::TableNameRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Takes a table offline.
    DisableTable(pb::TableNameRequest) -> pb::ProcedureResponse = disable_table,
        need |r: &pb::TableNameRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Empties a disabled table (HBase's service spells it with a lower-case first letter).
    TruncateTable | "truncateTable" (pb::TruncateTableRequest) -> pb::ProcedureResponse
        = truncate_table,
        need |r: &pb::TruncateTableRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Replaces a table's schema online.
    ModifyTable(pb::ModifyTableRequest) -> pb::ProcedureResponse = modify_table,
        need |r: &pb::ModifyTableRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Adds a family.
    AddColumn(pb::AddColumnRequest) -> pb::ProcedureResponse = add_column,
        need |r: &pb::AddColumnRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Replaces a family's settings.
    ModifyColumn(pb::AddColumnRequest) -> pb::ProcedureResponse = modify_column,
        need |r: &pb::AddColumnRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Drops a family and its data.
    DeleteColumn(pb::DeleteColumnRequest) -> pb::ProcedureResponse = delete_column,
        need |r: &pb::DeleteColumnRequest| Need::admin_or_create(&r.table_name), nonce;
    /// Schemas, of the tables named or of those matching.
    GetTableDescriptors(pb::GetTableDescriptorsRequest) -> pb::GetTableDescriptorsResponse
        = get_table_descriptors, need need::anyone;
    /// Table names matching a regex, in a namespace.
    GetTableNames(pb::GetTableNamesRequest) -> pb::GetTableNamesResponse = get_table_names,
        need need::anyone;
    /// The schemas of a namespace's tables.
    ListTableDescriptorsByNamespace(pb::ListTableDescriptorsByNamespaceRequest)
        -> pb::ListTableDescriptorsByNamespaceResponse
        = list_table_descriptors_by_namespace, need need::anyone;
    /// The names of the enabled (or the disabled) tables.
    ListTableNamesByState(pb::ListTableNamesByStateRequest) -> pb::ListTableNamesByStateResponse
        = list_table_names_by_state, need need::anyone;
    /// The schemas of the enabled (or the disabled) tables.
    ListTableDescriptorsByState(pb::ListTableDescriptorsByStateRequest)
        -> pb::ListTableDescriptorsByStateResponse
        = list_table_descriptors_by_state, need need::anyone;
    /// Whether a table is enabled.
    GetTableState(pb::GetTableStateRequest) -> pb::GetTableStateResponse = get_table_state,
        need need::anyone;
    /// An alter's progress: regions still to reopen, of how many.
    GetSchemaAlterStatus(pb::GetSchemaAlterStatusRequest) -> pb::GetSchemaAlterStatusResponse
        = get_schema_alter_status, need need::anyone;
    /// A procedure's state (Basalt's are finished when their call returns).
    GetProcedureResult | "getProcedureResult" (pb::GetProcedureResultRequest)
        -> pb::GetProcedureResultResponse = get_procedure_result, need need::anyone;
    /// Aborts a procedure: none is ever aborted, Basalt's having finished when their call
    /// returned (HBase's answer for a finished procedure).
    AbortProcedure(pb::AbortProcedureRequest) -> pb::AbortProcedureResponse = abort_procedure,
        need need::admin;
    /// Whether the master runs.
    IsMasterRunning(pb::IsMasterRunningRequest) -> pb::IsMasterRunningResponse
        = is_master_running, need need::anyone;
}

/// A table name a server sent, read back (an unreadable one is the server's fault).
fn server_table(t: &pb::TableName) -> Result<TableName> {
    table_name(t).map_err(|e| Error::corrupt(e.to_string()))
}

fn table_request(name: &TableName) -> pb::TableNameRequest {
    pb::TableNameRequest {
        table_name: pb_table_name(name),
        ..pb::TableNameRequest::default()
    }
}

/// A family's request: the family as a table's schema carries it.
fn column_request(name: &TableName, family: &ColumnFamilyDescriptor) -> pb::AddColumnRequest {
    let described = TableDescriptor::new(name.clone()).with_family(family.clone());
    pb::AddColumnRequest {
        table_name: pb_table_name(name),
        column_families: schema(&described)
            .column_families
            .into_iter()
            .next()
            .unwrap_or_default(),
        ..pb::AddColumnRequest::default()
    }
}

calls! {
    /// Tables and their families.
    TableAdmin, AsyncTableAdmin;

    /// Creates a table, pre-split at `split_keys`.
    async fn create_table(c, descriptor: TableDescriptor, split_keys: &[Bytes]) -> Result<()> {
        let name = descriptor.name.clone();
        let request = pb::CreateTableRequest {
            table_schema: schema(&descriptor),
            split_keys: split_keys.iter().map(|k| k.to_vec()).collect(),
            ..pb::CreateTableRequest::default()
        };
        c.call::<CreateTable>(Some(&name), request).await?;
        c.changed(Changed::Table(&name));
        Ok(())
    }

    /// User tables, sorted.
    async fn table_names(c) -> Result<Vec<TableName>> {
        let names = c
            .call::<GetTableNames>(None, pb::GetTableNamesRequest::default())
            .await?;
        let mut out = names
            .table_names
            .iter()
            .map(server_table)
            .collect::<Result<Vec<_>>>()?;
        out.sort();
        Ok(out)
    }

    /// Whether the table exists.
    async fn table_exists(c, name: &TableName) -> Result<bool> {
        match describe_table(c, name).await {
            Ok(_) => Ok(true),
            Err(Error::TableNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The table's schema.
    async fn describe_table(c, name: &TableName) -> Result<TableDescriptor> {
        let request = pb::GetTableDescriptorsRequest {
            table_names: vec![pb_table_name(name)],
            ..pb::GetTableDescriptorsRequest::default()
        };
        let found = c.call::<GetTableDescriptors>(Some(name), request).await?;
        let schema = found
            .table_schema
            .first()
            .ok_or_else(|| Error::TableNotFound(name.clone()))?;
        descriptor(name.clone(), schema)
            .map_err(|e| Error::corrupt(format!("the server's schema of {name}: {e}")))
    }

    /// Whether the table is enabled.
    async fn is_table_enabled(c, name: &TableName) -> Result<bool> {
        let request = pb::GetTableStateRequest {
            table_name: pb_table_name(name),
        };
        let state = c.call::<GetTableState>(Some(name), request).await?;
        Ok(state.table_state.state == pb::table_state::State::Enabled as i32)
    }

    /// Brings a disabled table back.
    async fn enable_table(c, name: &TableName) -> Result<()> {
        c.call::<EnableTable>(Some(name), table_request(name)).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Takes a table offline.
    async fn disable_table(c, name: &TableName) -> Result<()> {
        c.call::<DisableTable>(Some(name), table_request(name)).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Drops a disabled table and its data.
    async fn delete_table(c, name: &TableName) -> Result<()> {
        c.call::<DeleteTable>(Some(name), table_request(name)).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Empties a disabled table, keeping its regions' boundaries if asked.
    async fn truncate_table(c, name: &TableName, preserve_splits: bool) -> Result<()> {
        let request = pb::TruncateTableRequest {
            table_name: pb_table_name(name),
            preserve_splits: Some(preserve_splits),
            ..pb::TruncateTableRequest::default()
        };
        c.call::<TruncateTable>(Some(name), request).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Replaces the table's schema online.
    async fn modify_table(c, descriptor: TableDescriptor) -> Result<()> {
        let name = descriptor.name.clone();
        let request = pb::ModifyTableRequest {
            table_name: pb_table_name(&name),
            table_schema: schema(&descriptor),
            ..pb::ModifyTableRequest::default()
        };
        c.call::<ModifyTable>(Some(&name), request).await?;
        c.changed(Changed::Table(&name));
        Ok(())
    }

    /// Adds a column family.
    async fn add_column_family(c, name: &TableName, family: ColumnFamilyDescriptor) -> Result<()> {
        c.call::<AddColumn>(Some(name), column_request(name, &family)).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Replaces a column family's settings.
    async fn modify_column_family(
        c,
        name: &TableName,
        family: ColumnFamilyDescriptor,
    ) -> Result<()> {
        c.call::<ModifyColumn>(Some(name), column_request(name, &family)).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// Drops a column family and its data.
    async fn delete_column_family(c, name: &TableName, family: &[u8]) -> Result<()> {
        let request = pb::DeleteColumnRequest {
            table_name: pb_table_name(name),
            column_name: family.to_vec(),
            ..pb::DeleteColumnRequest::default()
        };
        c.call::<DeleteColumn>(Some(name), request).await?;
        c.changed(Changed::Table(name));
        Ok(())
    }

    /// An alter's progress: the table's regions still to reopen with the new schema, of how
    /// many.
    async fn alter_status(c, table: &TableName) -> Result<(u32, u32)> {
        let request = pb::GetSchemaAlterStatusRequest {
            table_name: pb_table_name(table),
        };
        let r = c.call::<GetSchemaAlterStatus>(None, request).await?;
        Ok((
            r.yet_to_update_regions.unwrap_or(0),
            r.total_regions.unwrap_or(0),
        ))
    }
}
