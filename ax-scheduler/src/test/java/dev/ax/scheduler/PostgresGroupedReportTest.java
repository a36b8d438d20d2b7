package dev.ax.scheduler;

class PostgresGroupedReportTest extends GroupedReportContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
