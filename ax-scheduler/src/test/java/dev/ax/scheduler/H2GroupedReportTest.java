package dev.ax.scheduler;

class H2GroupedReportTest extends GroupedReportContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
