from scalecore.softmax import softmax

# softmax turns scores into weights that sum to 1; larger scores take more of it
for scores in ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]):
    print(scores, [round(weight, 4) for weight in softmax(scores)])
