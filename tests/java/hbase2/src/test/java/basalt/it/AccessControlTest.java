package basalt.it;

import static basalt.it.Basalt.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;

/**
 * AccessControlClient's grants, as an operator's tool writes them, against a Basalt started
 * with {@code --authorization --superuser NAME} (BASALT_SUPERUSER names it; without it the
 * suite skips this class). Users connect as themselves (SIMPLE authentication).
 */
class AccessControlTest {
    private static Connection as(String user) throws Exception {
        return ConnectionFactory.createConnection(Basalt.conf(), User.create(UserGroupInformation.createRemoteUser(user)));
    }

    private static boolean listed(List<UserPermission> perms, String user, Permission.Action action) {
        for (UserPermission p : perms) {
            if (p.getUser().equals(user) && p.getPermission().implies(action)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void grantsReachTheirUsersAndRevokesTakeThemBack() throws Throwable {
        String superuser = System.getenv("BASALT_SUPERUSER");
        assumeTrue(superuser != null && !superuser.isEmpty(), "BASALT_SUPERUSER names the server's superuser");
        String alice = "alice" + System.nanoTime() % 100000;
        String bob = "bob" + System.nanoTime() % 100000;
        TableName name = TableName.valueOf("acl_" + System.nanoTime() % 100000);
        try (Connection admin = as(superuser); Connection asAlice = as(alice); Connection asBob = as(bob)) {
            try (Admin a = admin.getAdmin()) {
                a.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build());
            }
            try (Table t = admin.getTable(name)) {
                t.put(new Put(b("r1")).addColumn(b("cf"), b("q"), b("v1")));
            }
            // Nothing granted yet: alice may not read.
            try (Table t = asAlice.getTable(name)) {
                assertThrows(AccessDeniedException.class, () -> t.get(new Get(b("r1"))));
            }

            AccessControlClient.grant(admin, name, alice, null, null, Permission.Action.READ);
            List<UserPermission> onTable = AccessControlClient.getUserPermissions(admin, name.getNameAsString());
            assertTrue(listed(onTable, alice, Permission.Action.READ), "alice's READ listed: " + onTable);
            assertTrue(AccessControlClient.hasPermission(admin, name.getNameAsString(), "cf", "q", alice, Permission.Action.READ));
            assertFalse(AccessControlClient.hasPermission(admin, name.getNameAsString(), "cf", "q", alice, Permission.Action.WRITE));
            try (Table t = asAlice.getTable(name)) {
                assertArrayEquals(b("v1"), t.get(new Get(b("r1"))).getValue(b("cf"), b("q")));
                assertThrows(AccessDeniedException.class, () -> t.put(new Put(b("r2")).addColumn(b("cf"), b("q"), b("x"))));
            }

            // A namespace grant reaches the namespace's tables; a global one, every table.
            AccessControlClient.grant(admin, NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR, bob, Permission.Action.WRITE);
            assertTrue(listed(AccessControlClient.getUserPermissions(admin, "@" + NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR), bob, Permission.Action.WRITE));
            try (Table t = asBob.getTable(name)) {
                t.put(new Put(b("r3")).addColumn(b("cf"), b("q"), b("from bob")));
                assertThrows(AccessDeniedException.class, () -> t.get(new Get(b("r3"))));
            }
            AccessControlClient.grant(admin, bob, Permission.Action.READ);
            try (Table t = asBob.getTable(name)) {
                assertArrayEquals(b("from bob"), t.get(new Get(b("r3"))).getValue(b("cf"), b("q")));
            }
            // Only the superuser (or ADMIN) grants.
            assertThrows(AccessDeniedException.class,
                () -> AccessControlClient.grant(asAlice, name, bob, null, null, Permission.Action.ADMIN));

            AccessControlClient.revoke(admin, name, alice, null, null, Permission.Action.READ);
            assertFalse(listed(AccessControlClient.getUserPermissions(admin, name.getNameAsString()), alice, Permission.Action.READ));
            try (Table t = asAlice.getTable(name)) {
                assertThrows(AccessDeniedException.class, () -> t.get(new Get(b("r1"))));
            }
            AccessControlClient.revoke(admin, bob, Permission.Action.READ);
            AccessControlClient.revoke(admin, NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR, bob, Permission.Action.WRITE);
            try (Table t = asBob.getTable(name)) {
                assertThrows(AccessDeniedException.class, () -> t.put(new Put(b("r4")).addColumn(b("cf"), b("q"), b("x"))));
            }
        }
    }
}
