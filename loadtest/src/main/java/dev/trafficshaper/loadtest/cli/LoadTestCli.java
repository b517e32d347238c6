package dev.trafficshaper.loadtest.cli;

import dev.trafficshaper.loadtest.bench.DrainBenchCommand;
import dev.trafficshaper.loadtest.demo.DemoCommand;
import dev.trafficshaper.simulator.cli.BedrockSimCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar traffic-shaper-loadtest.jar <command>}: the simulator, the Bedrock simulator, the demo, the
 * drain benchmark and the load-test harness ({@code run}, {@code report}).
 */
@Command(name = "traffic-shaper-loadtest", mixinStandardHelpOptions = true,
        description = "Simulations and load tests for the Bedrock traffic shaper.",
        subcommands = {DemoCommand.class, SimulateCommand.class, BedrockSimCommand.class, DrainBenchCommand.class,
                RunCommand.class, ReportCommand.class,
                CommandLine.HelpCommand.class})
public final class LoadTestCli {

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        int exit = new CommandLine(new LoadTestCli()).execute(args);
        System.exit(exit);
    }
}
