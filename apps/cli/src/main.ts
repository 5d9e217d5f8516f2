console.log("todo");
