//! Tables and their families, as MasterService serves them: DDL through the master's
//! procedures, each answered with a procedure id that is finished when asked about.

use std::sync::atomic::Ordering;

use basalt_common::{Bytes, Result, TableName};
use basalt_ops::tables::{TableHandler, created_table};
use basalt_proto::pb::{self, get_procedure_result_response, table_state};
use basalt_proto::schema::{
    parse_descriptor, parse_family, parse_table_name, pb_table_name, schema,
};

use super::MasterService;

impl MasterService {
    /// A finished procedure's answer.
    pub(super) fn procedure_done(&self) -> pb::ProcedureResponse {
        pb::ProcedureResponse {
            proc_id: Some(self.procedure()),
        }
    }

    /// Table names by regex, system tables and namespace, sorted.
    pub(super) fn names(
        &self,
        regex: Option<&str>,
        include_system: bool,
        namespace: Option<&str>,
    ) -> Result<Vec<TableName>> {
        let mut names = self
            .admin()
            .list_table_names_matching(regex.unwrap_or(".*"), include_system)?;
        if let Some(ns) = namespace.filter(|n| !n.is_empty()) {
            names.retain(|t| t.namespace() == ns);
        }
        names.sort();
        Ok(names)
    }

    /// The schemas of these tables; one that no longer exists is left out, as HBase's master
    /// leaves it.
    pub(super) fn schemas(&self, names: &[TableName]) -> Vec<pb::TableSchema> {
        let admin = self.admin();
        names
            .iter()
            .filter_map(|t| admin.describe_table(t).ok())
            .map(|d| schema(&d))
            .collect()
    }

    /// The tables (system ones too, but meta, whose state HBase keeps nowhere) enabled, or
    /// disabled.
    fn in_state(&self, enabled: bool) -> Result<Vec<TableName>> {
        let admin = self.admin();
        let mut names = self.names(None, true, None)?;
        names.retain(|t| !t.is_meta() && admin.is_table_enabled(t).is_ok_and(|e| e == enabled));
        Ok(names)
    }
}

impl TableHandler for MasterService {
    fn create_table(&self, r: pb::CreateTableRequest) -> Result<pb::ProcedureResponse> {
        let desc = parse_descriptor(created_table(&r)?, &r.table_schema)?;
        let splits: Vec<Bytes> = r
            .split_keys
            .iter()
            .map(|k| Bytes::copy_from_slice(k))
            .collect();
        self.admin().create_table_with_splits(desc, &splits)?;
        Ok(self.procedure_done())
    }

    fn delete_table(&self, r: pb::TableNameRequest) -> Result<pb::ProcedureResponse> {
        self.admin()
            .delete_table(&parse_table_name(&r.table_name)?)?;
        Ok(self.procedure_done())
    }

    fn enable_table(&self, r: pb::TableNameRequest) -> Result<pb::ProcedureResponse> {
        self.admin()
            .enable_table(&parse_table_name(&r.table_name)?)?;
        Ok(self.procedure_done())
    }

    fn disable_table(&self, r: pb::TableNameRequest) -> Result<pb::ProcedureResponse> {
        self.admin()
            .disable_table(&parse_table_name(&r.table_name)?)?;
        Ok(self.procedure_done())
    }

    fn truncate_table(&self, r: pb::TruncateTableRequest) -> Result<pb::ProcedureResponse> {
        let t = parse_table_name(&r.table_name)?;
        self.admin().truncate_table(&t, r.preserve_splits())?;
        Ok(self.procedure_done())
    }

    fn modify_table(&self, r: pb::ModifyTableRequest) -> Result<pb::ProcedureResponse> {
        let name = parse_table_name(&r.table_name)?;
        self.admin()
            .modify_table(parse_descriptor(name, &r.table_schema)?)?;
        Ok(self.procedure_done())
    }

    fn add_column(&self, r: pb::AddColumnRequest) -> Result<pb::ProcedureResponse> {
        let t = parse_table_name(&r.table_name)?;
        self.admin()
            .add_column_family(&t, parse_family(&r.column_families)?)?;
        Ok(self.procedure_done())
    }

    fn modify_column(&self, r: pb::AddColumnRequest) -> Result<pb::ProcedureResponse> {
        let t = parse_table_name(&r.table_name)?;
        self.admin()
            .modify_column_family(&t, parse_family(&r.column_families)?)?;
        Ok(self.procedure_done())
    }

    fn delete_column(&self, r: pb::DeleteColumnRequest) -> Result<pb::ProcedureResponse> {
        let t = parse_table_name(&r.table_name)?;
        self.admin().delete_column_family(&t, &r.column_name)?;
        Ok(self.procedure_done())
    }

    fn get_table_descriptors(
        &self,
        r: pb::GetTableDescriptorsRequest,
    ) -> Result<pb::GetTableDescriptorsResponse> {
        let names: Vec<TableName> = if r.table_names.is_empty() {
            self.names(
                r.regex.as_deref(),
                r.include_sys_tables(),
                r.namespace.as_deref(),
            )?
        } else {
            r.table_names
                .iter()
                .map(parse_table_name)
                .collect::<Result<_>>()?
        };
        Ok(pb::GetTableDescriptorsResponse {
            table_schema: self.schemas(&names),
        })
    }

    fn get_table_names(&self, r: pb::GetTableNamesRequest) -> Result<pb::GetTableNamesResponse> {
        let names = self.names(
            r.regex.as_deref(),
            r.include_sys_tables(),
            r.namespace.as_deref(),
        )?;
        Ok(pb::GetTableNamesResponse {
            table_names: names.iter().map(pb_table_name).collect(),
        })
    }

    fn list_table_descriptors_by_namespace(
        &self,
        r: pb::ListTableDescriptorsByNamespaceRequest,
    ) -> Result<pb::ListTableDescriptorsByNamespaceResponse> {
        // An unknown namespace is NamespaceNotFoundException, as HBase's master answers.
        self.admin().get_namespace_descriptor(&r.namespace_name)?;
        let names = self.names(None, true, Some(&r.namespace_name))?;
        Ok(pb::ListTableDescriptorsByNamespaceResponse {
            table_schema: self.schemas(&names),
        })
    }

    fn list_table_names_by_state(
        &self,
        r: pb::ListTableNamesByStateRequest,
    ) -> Result<pb::ListTableNamesByStateResponse> {
        Ok(pb::ListTableNamesByStateResponse {
            table_names: self
                .in_state(r.is_enabled)?
                .iter()
                .map(pb_table_name)
                .collect(),
        })
    }

    fn list_table_descriptors_by_state(
        &self,
        r: pb::ListTableDescriptorsByStateRequest,
    ) -> Result<pb::ListTableDescriptorsByStateResponse> {
        Ok(pb::ListTableDescriptorsByStateResponse {
            table_schema: self.schemas(&self.in_state(r.is_enabled)?),
        })
    }

    fn get_table_state(&self, r: pb::GetTableStateRequest) -> Result<pb::GetTableStateResponse> {
        let t = parse_table_name(&r.table_name)?;
        let state = if self.admin().is_table_enabled(&t)? {
            table_state::State::Enabled
        } else {
            table_state::State::Disabled
        };
        Ok(pb::GetTableStateResponse {
            table_state: pb::TableState {
                state: state as i32,
            },
        })
    }

    fn get_schema_alter_status(
        &self,
        r: pb::GetSchemaAlterStatusRequest,
    ) -> Result<pb::GetSchemaAlterStatusResponse> {
        let table = self.master.table(&parse_table_name(&r.table_name)?)?;
        let (yet, total) = table.alter_status();
        Ok(pb::GetSchemaAlterStatusResponse {
            yet_to_update_regions: Some(yet),
            total_regions: Some(total),
        })
    }

    fn get_procedure_result(
        &self,
        r: pb::GetProcedureResultRequest,
    ) -> Result<pb::GetProcedureResultResponse> {
        use get_procedure_result_response::State;
        let known = r.proc_id >= 1 && r.proc_id <= self.procedures.load(Ordering::Acquire);
        Ok(pb::GetProcedureResultResponse {
            state: if known {
                State::Finished
            } else {
                State::NotFound
            } as i32,
            ..pb::GetProcedureResultResponse::default()
        })
    }

    fn abort_procedure(&self, _: pb::AbortProcedureRequest) -> Result<pb::AbortProcedureResponse> {
        // Every procedure Basalt named had finished when its call returned; one it never
        // named is not found. HBase answers false for both.
        Ok(pb::AbortProcedureResponse {
            is_procedure_aborted: false,
        })
    }

    fn is_master_running(
        &self,
        _: pb::IsMasterRunningRequest,
    ) -> Result<pb::IsMasterRunningResponse> {
        Ok(pb::IsMasterRunningResponse {
            is_master_running: true,
        })
    }
}
