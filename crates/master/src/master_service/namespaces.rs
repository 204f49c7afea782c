//! Namespaces, as MasterService serves them.

use basalt_common::Result;
use basalt_ops::namespaces::NamespaceHandler;
use basalt_proto::pb;
use basalt_proto::schema::{namespace, namespace_descriptor, pb_table_name};

use super::MasterService;

impl NamespaceHandler for MasterService {
    fn create_namespace(&self, r: pb::NamespaceRequest) -> Result<pb::ProcedureResponse> {
        let ns = namespace_descriptor(&r.namespace_descriptor);
        self.admin().create_namespace(ns)?;
        Ok(self.procedure_done())
    }

    fn modify_namespace(&self, r: pb::NamespaceRequest) -> Result<pb::ProcedureResponse> {
        let ns = namespace_descriptor(&r.namespace_descriptor);
        self.admin().modify_namespace(ns)?;
        Ok(self.procedure_done())
    }

    fn delete_namespace(&self, r: pb::NamespaceNameRequest) -> Result<pb::ProcedureResponse> {
        self.admin().delete_namespace(&r.namespace_name)?;
        Ok(self.procedure_done())
    }

    fn get_namespace_descriptor(
        &self,
        r: pb::NamespaceNameRequest,
    ) -> Result<pb::GetNamespaceDescriptorResponse> {
        let d = self.admin().get_namespace_descriptor(&r.namespace_name)?;
        Ok(pb::GetNamespaceDescriptorResponse {
            namespace_descriptor: namespace(&d),
        })
    }

    fn list_namespace_descriptors(
        &self,
        _: pb::ListNamespaceDescriptorsRequest,
    ) -> Result<pb::ListNamespaceDescriptorsResponse> {
        Ok(pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: self
                .admin()
                .list_namespace_descriptors()
                .iter()
                .map(namespace)
                .collect(),
        })
    }

    fn list_namespaces(&self, _: pb::ListNamespacesRequest) -> Result<pb::ListNamespacesResponse> {
        Ok(pb::ListNamespacesResponse {
            namespace_name: self
                .admin()
                .list_namespace_descriptors()
                .into_iter()
                .map(|d| d.name)
                .collect(),
        })
    }

    fn list_table_names_by_namespace(
        &self,
        r: pb::NamespaceNameRequest,
    ) -> Result<pb::ListTableNamesByNamespaceResponse> {
        let names = self
            .admin()
            .list_table_names_by_namespace(&r.namespace_name)?;
        Ok(pb::ListTableNamesByNamespaceResponse {
            table_name: names.iter().map(pb_table_name).collect(),
        })
    }
}
