package dev.trafficshaper.aws.dynamodb;

import dev.trafficshaper.lifecycle.ModelStatusBoard;
import dev.trafficshaper.testing.AwsEmulator;
import dev.trafficshaper.testing.StatusBoardContract;

/** The status board contract on DynamoDB, fenced by a conditional put, against the emulator. */
class DynamoDbStatusBoardIT extends StatusBoardContract {

    @Override
    protected ModelStatusBoard newBoard() {
        AwsEmulator aws = AwsEmulator.shared();
        return DynamoDbModelStatusBoard.create(aws.dynamoDb(), aws.createTable("board"));
    }
}
